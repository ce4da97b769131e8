// test_disabled.cpp -- test_disabled.c again, as C++ (-DRECORDER_DISABLE).
#include "test_disabled.c"
