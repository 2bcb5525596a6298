// Typed wrappers for libcurl's variadic functions, which Swift cannot call directly
// (the same approach GRDB takes for sqlite3_config).
#ifndef CPL_CURL_SHIM_H
#define CPL_CURL_SHIM_H

#include <curl/curl.h>
#include <string.h>
#include <netinet/in.h>

#pragma clang assume_nonnull begin

/// CURLOPT_WRITEFUNCTION's signature; `userdata` is whatever CURLOPT_WRITEDATA was set to.
typedef size_t (*cpl_write_callback)(char *data, size_t size, size_t count, void *_Nullable userdata);

/// CURLOPT_OPENSOCKETFUNCTION's signature; `clientp` is whatever CURLOPT_OPENSOCKETDATA was set to.
typedef curl_socket_t (*cpl_opensocket_callback)(void *_Nullable clientp, curlsocktype purpose, struct curl_sockaddr *address);

/// CURLOPT_XFERINFOFUNCTION's signature; `clientp` is whatever CURLOPT_XFERINFODATA was set to.
typedef int (*cpl_xferinfo_callback)(void *_Nullable clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

/// Copies the IP address of `address` into `bytes` (4 bytes for IPv4, 16 for IPv6) and its port
/// into `port`; returns the address's length, or 0 for a family that is neither.
static inline int cpl_sockaddr_ip(const struct curl_sockaddr *address, unsigned char bytes[_Nonnull 16], int *port) {
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&address->addr;
        memcpy(bytes, &v4->sin_addr, 4);
        *port = ntohs(v4->sin_port);
        return 4;
    }
    if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&address->addr;
        memcpy(bytes, &v6->sin6_addr, 16);
        *port = ntohs(v6->sin6_port);
        return 16;
    }
    return 0;
}

static inline CURLcode cpl_curl_easy_setopt_opensocket_callback(CURL *curl, CURLoption option, cpl_opensocket_callback value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cpl_curl_easy_setopt_xferinfo_callback(CURL *curl, CURLoption option, cpl_xferinfo_callback value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cpl_curl_easy_setopt_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cpl_curl_easy_setopt_string(CURL *curl, CURLoption option, const char *_Nullable value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cpl_curl_easy_setopt_pointer(CURL *curl, CURLoption option, void *_Nullable value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cpl_curl_easy_setopt_off_t(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cpl_curl_easy_setopt_write_callback(CURL *curl, CURLoption option, cpl_write_callback value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode cpl_curl_easy_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}

static inline CURLcode cpl_curl_easy_getinfo_off_t(CURL *curl, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(curl, info, value);
}

static inline CURLcode cpl_curl_easy_getinfo_string(CURL *curl, CURLINFO info, const char *_Nullable *value) {
    return curl_easy_getinfo(curl, info, value);
}

#pragma clang assume_nonnull end

#endif
