/* Diagnosis only (benchmark 3): LD_PRELOAD'ed into the server to set TCP_NODELAY on every
 * accepted socket, showing what the proposed fix (TCP_NODELAY in PhotoWeb) would do to
 * throughput. FlyingFox writes a response's header and body in two writes; without
 * TCP_NODELAY, Nagle holds the body until the client's delayed ACK (~40 ms) of the header. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static void nodelay(int fd) {
    if (fd >= 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
    static int (*real)(int, struct sockaddr *, socklen_t *);
    if (!real) real = dlsym(RTLD_NEXT, "accept");
    int client = real(fd, addr, len);
    nodelay(client);
    return client;
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    static int (*real)(int, struct sockaddr *, socklen_t *, int);
    if (!real) real = dlsym(RTLD_NEXT, "accept4");
    int client = real(fd, addr, len, flags);
    nodelay(client);
    return client;
}
