# docs/llama.cpp.md's lines for a recorder that is built but not
# installed: RECORDER_DIR its source tree, RECORDER_BUILD its build
# directory (both given with -D).

# snippet: cmake-tree
target_include_directories(ggml-cpu PRIVATE ${RECORDER_DIR}/include)
target_include_directories(llama PRIVATE ${RECORDER_DIR}/include)
target_include_directories(${RECORDER_COMPLETION} PRIVATE ${RECORDER_DIR}/include ${RECORDER_DIR}/librecorder/include)
target_link_libraries(${RECORDER_COMPLETION} PRIVATE ${RECORDER_BUILD}/librecorder/librecorder.so)
# end snippet: cmake-tree
