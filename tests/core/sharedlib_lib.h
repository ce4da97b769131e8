/*
 * sharedlib_lib.h -- the shared library of the sharedlib test: its own copy
 * of the recorder implementation, and calls the app makes into it.
 */
#ifndef RECORDER_TEST_SHAREDLIB_LIB_H
#define RECORDER_TEST_SHAREDLIB_LIB_H

#define LIB_API __attribute__((visibility("default")))

LIB_API int lib_init(void);
LIB_API void lib_shutdown(void);
LIB_API const char *lib_segment_path(void);
LIB_API void lib_instant(void);
/* A scope "lib.work" around cb(), and a dynamic scope "shared.dyn". */
LIB_API void lib_work(void (*cb)(void));

#endif
