# docs/llama.cpp.md's lines for an installed recorder (recorder.pc,
# librecorder.pc), as they go at the end of llama.cpp's CMakeLists.txt.

# snippet: cmake-pkgconfig
find_package(PkgConfig REQUIRED)
pkg_check_modules(RECORDER REQUIRED IMPORTED_TARGET recorder)
target_link_libraries(ggml-cpu PRIVATE PkgConfig::RECORDER)
target_link_libraries(llama PRIVATE PkgConfig::RECORDER)
target_link_libraries(${RECORDER_COMPLETION} PRIVATE PkgConfig::RECORDER)
# end snippet: cmake-pkgconfig

# snippet: cmake-pkgconfig-session
pkg_check_modules(LIBRECORDER REQUIRED IMPORTED_TARGET librecorder)
target_link_libraries(${RECORDER_COMPLETION} PRIVATE PkgConfig::LIBRECORDER)
# end snippet: cmake-pkgconfig-session
