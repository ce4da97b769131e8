# docs/llama.cpp.md's first CMake lines: which target compiles
# tools/completion/completion.cpp, in either shape of llama.cpp's tree.

# snippet: cmake-completion-target
# The target that compiles tools/completion/completion.cpp: a library of
# its own in newer trees (llama-completion-impl; completion-lib for a
# while), where the program llama-completion is only main.cpp.
set(RECORDER_COMPLETION llama-completion)
foreach(t llama-completion-impl completion-lib)
  if(TARGET ${t})
    set(RECORDER_COMPLETION ${t})
  endif()
endforeach()
# end snippet: cmake-completion-target
