#ifndef ANIMPLAY_CCURL_SHIM_H
#define ANIMPLAY_CCURL_SHIM_H
// libcurl for Swift, loaded on first use.
//
// Why dlopen: linking libcurl makes every start of animplay load it and the ~30 libraries it
// depends on (OpenSSL, GnuTLS, Kerberos, LDAP, ...), about 25 ms before main even for a local
// file. Only URLs need it, so the first URL loads libcurl.so.4 (Debian: libcurl4) instead.
//
// Why wrappers: curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call,
// so there is one typed wrapper per argument type. The header only supplies types and
// constants; no symbol of libcurl is referenced at link time.
// CURLOPT_PROTOCOLS and CURLOPT_REDIR_PROTOCOLS are deprecated since 7.85 but are the only
// way on older libcurl (Ubuntu 22.04 has 7.81): see animplay_curl_restrict_protocols.
#define CURL_DISABLE_DEPRECATION 1
#include <curl/curl.h>
#include <dlfcn.h>

typedef size_t (*animplay_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *user);

/// libcurl's handle from dlopen, or NULL when it is not installed. The first call comes from
/// the initialisation of HTTPDownload's `curlReady` (a Swift global, initialised once under a
/// lock), on the thread that starts the first download (the main thread, or a background
/// revalidation's), before any transfer thread exists.
static inline void *animplay_curl_library(void) {
    static void *lib;
    if (!lib) lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    return lib;
}
static inline void *animplay_curl_symbol(const char *name) {
    void *lib = animplay_curl_library();
    return lib ? dlsym(lib, name) : 0;
}

static inline CURLcode animplay_curl_global_init(long flags) {
    CURLcode (*f)(long) = (CURLcode (*)(long))animplay_curl_symbol("curl_global_init");
    return f ? f(flags) : CURLE_FAILED_INIT;
}
static inline CURL *animplay_curl_easy_init(void) {
    CURL *(*f)(void) = (CURL *(*)(void))animplay_curl_symbol("curl_easy_init");
    return f ? f() : 0;
}
static inline void animplay_curl_easy_cleanup(CURL *h) {
    void (*f)(CURL *) = (void (*)(CURL *))animplay_curl_symbol("curl_easy_cleanup");
    if (f) f(h);
}
static inline CURLcode animplay_curl_easy_perform(CURL *h) {
    CURLcode (*f)(CURL *) = (CURLcode (*)(CURL *))animplay_curl_symbol("curl_easy_perform");
    return f ? f(h) : CURLE_FAILED_INIT;
}
static inline const char *animplay_curl_easy_strerror(CURLcode c) {
    const char *(*f)(CURLcode) = (const char *(*)(CURLcode))animplay_curl_symbol("curl_easy_strerror");
    return f ? f(c) : "libcurl is not available";
}
static inline struct curl_slist *animplay_curl_slist_append(struct curl_slist *l, const char *s) {
    struct curl_slist *(*f)(struct curl_slist *, const char *) =
        (struct curl_slist *(*)(struct curl_slist *, const char *))animplay_curl_symbol("curl_slist_append");
    return f ? f(l, s) : l;
}
static inline void animplay_curl_slist_free_all(struct curl_slist *l) {
    void (*f)(struct curl_slist *) = (void (*)(struct curl_slist *))animplay_curl_symbol("curl_slist_free_all");
    if (f) f(l);
}

typedef CURLcode (*animplay_curl_setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*animplay_curl_getinfo_fn)(CURL *, CURLINFO, ...);
static inline animplay_curl_setopt_fn animplay_curl_setopt(void) {
    return (animplay_curl_setopt_fn)animplay_curl_symbol("curl_easy_setopt");
}
static inline animplay_curl_getinfo_fn animplay_curl_getinfo(void) {
    return (animplay_curl_getinfo_fn)animplay_curl_symbol("curl_easy_getinfo");
}

static inline CURLcode animplay_curl_set_long(CURL *h, CURLoption o, long v) {
    animplay_curl_setopt_fn f = animplay_curl_setopt();
    return f ? f(h, o, v) : CURLE_FAILED_INIT;
}
static inline CURLcode animplay_curl_set_off(CURL *h, CURLoption o, curl_off_t v) {
    animplay_curl_setopt_fn f = animplay_curl_setopt();
    return f ? f(h, o, v) : CURLE_FAILED_INIT;
}
static inline CURLcode animplay_curl_set_string(CURL *h, CURLoption o, const char *v) {
    animplay_curl_setopt_fn f = animplay_curl_setopt();
    return f ? f(h, o, v) : CURLE_FAILED_INIT;
}
static inline CURLcode animplay_curl_set_pointer(CURL *h, CURLoption o, void *v) {
    animplay_curl_setopt_fn f = animplay_curl_setopt();
    return f ? f(h, o, v) : CURLE_FAILED_INIT;
}
static inline CURLcode animplay_curl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    animplay_curl_setopt_fn f = animplay_curl_setopt();
    return f ? f(h, o, v) : CURLE_FAILED_INIT;
}
static inline CURLcode animplay_curl_set_data_cb(CURL *h, CURLoption o, animplay_curl_data_cb v) {
    animplay_curl_setopt_fn f = animplay_curl_setopt();
    return f ? f(h, o, v) : CURLE_FAILED_INIT;
}
static inline long animplay_curl_info_long(CURL *h, CURLINFO i) {
    long v = 0;
    animplay_curl_getinfo_fn f = animplay_curl_getinfo();
    return f && f(h, i, &v) == CURLE_OK ? v : -1;
}
static inline curl_off_t animplay_curl_info_off(CURL *h, CURLINFO i) {
    curl_off_t v = -1;
    animplay_curl_getinfo_fn f = animplay_curl_getinfo();
    return f && f(h, i, &v) == CURLE_OK ? v : -1;
}
static inline const char *animplay_curl_info_string(CURL *h, CURLINFO i) {
    const char *v = 0;
    animplay_curl_getinfo_fn f = animplay_curl_getinfo();
    return f && f(h, i, &v) == CURLE_OK ? v : 0;
}

/// Only http and https, also after redirects: the string options (libcurl 7.85 and later),
/// else the bit masks they replace. CURLE_OK only when both restrictions are in place.
static inline CURLcode animplay_curl_restrict_protocols(CURL *h) {
    if (animplay_curl_set_string(h, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK &&
        animplay_curl_set_string(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") == CURLE_OK)
        return CURLE_OK;
    long mask = CURLPROTO_HTTP | CURLPROTO_HTTPS;
    CURLcode rc = animplay_curl_set_long(h, CURLOPT_PROTOCOLS, mask);
    if (rc != CURLE_OK) return rc;
    return animplay_curl_set_long(h, CURLOPT_REDIR_PROTOCOLS, mask);
}

/// Progress callbacks (CURLOPT_XFERINFOFUNCTION): libcurl calls it at least once a second,
/// also when nothing arrives; a non-zero return aborts the transfer (CURLE_ABORTED_BY_CALLBACK).
typedef int (*animplay_curl_xferinfo_cb)(void *user, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode animplay_curl_set_xferinfo_cb(CURL *h, animplay_curl_xferinfo_cb v) {
    animplay_curl_setopt_fn f = animplay_curl_setopt();
    return f ? f(h, CURLOPT_XFERINFOFUNCTION, v) : CURLE_FAILED_INIT;
}
#endif
