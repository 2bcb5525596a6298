// Typed wrappers for libcurl's variadic functions, which Swift cannot call directly
// (the same approach GRDB takes for sqlite3_config).
#ifndef CPL_CURL_SHIM_H
#define CPL_CURL_SHIM_H

#include <curl/curl.h>

#pragma clang assume_nonnull begin

/// CURLOPT_WRITEFUNCTION's signature; `userdata` is whatever CURLOPT_WRITEDATA was set to.
typedef size_t (*cpl_write_callback)(char *data, size_t size, size_t count, void *_Nullable userdata);

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
