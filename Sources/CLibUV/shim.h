#ifndef GREENROOM_CLIBUV_SHIM_H
#define GREENROOM_CLIBUV_SHIM_H
#include <uv.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/file.h>
#include <signal.h>
#include <errno.h>

/* SO_PEERCRED needs _GNU_SOURCE for struct ucred; read it through a shim so Swift need not. */
static inline int greenroom_peer_uid(int fd, unsigned int *uid, int *pid) {
    struct { int pid; unsigned int uid; unsigned int gid; } cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, 17 /* SO_PEERCRED */, &cred, &len) != 0) return -errno;
    *uid = cred.uid; *pid = cred.pid;
    return 0;
}

static inline size_t greenroom_sun_path_max(void) {
    struct sockaddr_un a;
    return sizeof(a.sun_path);
}

static inline void greenroom_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }
#endif
