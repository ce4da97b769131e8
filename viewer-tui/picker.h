/*
 * picker.h -- with no argument, recorder-top lists the programs that have
 * a recorder segment and lets the user pick one (the list refreshes every
 * second, or less often when listing is slow, so a program started later
 * shows up).
 */
#ifndef TUI_PICKER_H
#define TUI_PICKER_H

#include <stddef.h>

/* Curses must be set up.  Returns 1 with the chosen segment's path, or 0
 * if the user quit. */
int picker_run(char *path, size_t cap);

#endif
