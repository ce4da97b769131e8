/*
 * fake_cudart.c -- a "CUDA runtime" for test_inject besidert: built as
 * libcudart.so in the same folder as the fake libcupti.so, so that the
 * library's binder, finding no libcupti loaded, finds that one beside the
 * runtime the program loaded (gpu/cupti_api.c), before the loader's search
 * (which would find the toolkit's, and be refused without a GPU).
 */
int fake_cudart_version(void);
int fake_cudart_version(void) { return 13000; }
