/* term_signal: see term_signal.h. */
#include "term_signal.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static const int term_fatal_signals[] = {SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGSEGV,
                                         SIGBUS,  SIGABRT, SIGFPE,  SIGILL};
#define TERM_NFATAL (sizeof term_fatal_signals / sizeof *term_fatal_signals)

/* Mutable global by necessity: a signal handler sees nothing else.  Written
 * only while no handler is installed, read only by the handler. */
static struct {
    bool armed;
    int fd;
    bool have_modes;
    struct termios modes;
    size_t len;
    char reset[512];
    struct sigaction old[TERM_NFATAL];
} term_sig;

static void term_signal_handler(int sig)
{
    /* Only async-signal-safe calls from here on. */
    size_t off = 0;
    while (off < term_sig.len) {
        ssize_t k = write(term_sig.fd, term_sig.reset + off, term_sig.len - off);
        if (k <= 0)
            break;
        off += (size_t)k;
    }
    if (term_sig.have_modes)
        (void)tcsetattr(term_sig.fd, TCSANOW, &term_sig.modes);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    /* The default action now: the process ends with this signal (a fault
     * re-raised from the faulting instruction would do the same). */
    raise(sig);
}

void term_signal_save(int fd)
{
    if (term_sig.armed)
        term_signal_disarm();
    term_sig.fd = fd;
    term_sig.have_modes = tcgetattr(fd, &term_sig.modes) == 0;
}

void term_signal_arm(int fd, const char *reset, size_t len)
{
    if (term_sig.armed)
        term_signal_disarm();
    if (fd != term_sig.fd)
        term_sig.have_modes = false;
    term_sig.fd = fd;
    if (len > sizeof term_sig.reset)
        len = sizeof term_sig.reset;
    memcpy(term_sig.reset, reset, len);
    term_sig.len = len;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = term_signal_handler;
    sigemptyset(&sa.sa_mask);
    /* The other fatal signals wait while one resets the terminal. */
    for (size_t i = 0; i < TERM_NFATAL; i++)
        sigaddset(&sa.sa_mask, term_fatal_signals[i]);
    for (size_t i = 0; i < TERM_NFATAL; i++)
        sigaction(term_fatal_signals[i], &sa, &term_sig.old[i]);
    term_sig.armed = true;
}

void term_signal_disarm(void)
{
    if (!term_sig.armed)
        return;
    for (size_t i = 0; i < TERM_NFATAL; i++)
        sigaction(term_fatal_signals[i], &term_sig.old[i], NULL);
    term_sig.armed = false;
}
