#ifndef ANIMPLAY_CCURL_SHIM_H
#define ANIMPLAY_CCURL_SHIM_H
// libcurl for Swift. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call: one typed wrapper per argument type. CURL_ERROR_SIZE is a macro Swift sees as a
// constant, but the callbacks' types are spelled out here so Swift closures match them.
#include <curl/curl.h>

typedef size_t (*animplay_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *user);
typedef int (*animplay_curl_progress_cb)(void *user, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode animplay_curl_set_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode animplay_curl_set_off(CURL *h, CURLoption o, curl_off_t v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode animplay_curl_set_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode animplay_curl_set_pointer(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode animplay_curl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode animplay_curl_set_data_cb(CURL *h, CURLoption o, animplay_curl_data_cb v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode animplay_curl_set_progress_cb(CURL *h, animplay_curl_progress_cb v) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v);
}
static inline long animplay_curl_info_long(CURL *h, CURLINFO i) {
    long v = 0;
    return curl_easy_getinfo(h, i, &v) == CURLE_OK ? v : -1;
}
static inline curl_off_t animplay_curl_info_off(CURL *h, CURLINFO i) {
    curl_off_t v = -1;
    return curl_easy_getinfo(h, i, &v) == CURLE_OK ? v : -1;
}
static inline const char *animplay_curl_info_string(CURL *h, CURLINFO i) {
    const char *v = 0;
    return curl_easy_getinfo(h, i, &v) == CURLE_OK ? v : 0;
}
#endif
