/* term_signal: every signal that ends the viewer restores the terminal first.
 *
 * SIGINT, SIGTERM and SIGHUP stop the viewer cleanly (term.c's flag, then
 * endwin).  Every other signal whose default action ends the process
 * (SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, and the fatal SIGSEGV, SIGBUS,
 * SIGABRT, SIGFPE, SIGILL) cannot wait for the main loop: its handler writes
 * a reset sequence computed in advance (leave the alternate screen, show the
 * cursor, mouse reporting off, attributes off) to the terminal with
 * write(2), puts back the terminal's saved modes with tcsetattr(3) (both
 * async-signal-safe), then ends the process with the same signal (default
 * action re-raised), so the shell sees what killed it.  No curses here. */
#ifndef SV_TERM_SIGNAL_H
#define SV_TERM_SIGNAL_H

#include <stddef.h>

/* Saves fd's terminal modes, before curses changes them. */
void term_signal_save(int fd);
/* Installs the handlers; reset (len bytes, copied, at most 512) is what
 * the handler writes to fd, then it puts back the modes saved for fd. */
void term_signal_arm(int fd, const char *reset, size_t len);
/* Puts back the previous handlers. */
void term_signal_disarm(void);

/* The mouse-reporting modes the reset turns off (xterm, SGR, urxvt). */
#define TERM_MOUSE_OFF "\033[?1000l\033[?1002l\033[?1003l\033[?1005l\033[?1006l\033[?1015l"

#endif
