#define _GNU_SOURCE
#include "CShim.h"

#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <errno.h>
#include <libavdevice/version_major.h>
#include <libavutil/log.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

int CShim_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result;
}

const unsigned long CShim_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
const unsigned long CShim_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
const unsigned long CShim_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
const unsigned long CShim_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
const unsigned long CShim_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long CShim_VIDIOC_G_FMT = VIDIOC_G_FMT;
const unsigned long CShim_VIDIOC_G_PARM = VIDIOC_G_PARM;
const unsigned long CShim_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
const unsigned long CShim_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
const unsigned long CShim_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
const unsigned long CShim_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
const unsigned long CShim_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
const unsigned long CShim_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
const unsigned long CShim_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
const unsigned long CShim_VIDIOC_TRY_EXT_CTRLS = VIDIOC_TRY_EXT_CTRLS;
const unsigned long CShim_VIDIOC_G_INPUT = VIDIOC_G_INPUT;
const unsigned long CShim_VIDIOC_ENUMINPUT = VIDIOC_ENUMINPUT;
const unsigned long CShim_VIDIOC_S_FMT = VIDIOC_S_FMT;
const unsigned long CShim_VIDIOC_S_PARM = VIDIOC_S_PARM;
const unsigned long CShim_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
const unsigned long CShim_VIDIOC_QBUF = VIDIOC_QBUF;
const unsigned long CShim_VIDIOC_DQBUF = VIDIOC_DQBUF;
const unsigned long CShim_VIDIOC_STREAMON = VIDIOC_STREAMON;
const unsigned long CShim_VIDIOC_SUBSCRIBE_EVENT = VIDIOC_SUBSCRIBE_EVENT;
const unsigned long CShim_VIDIOC_DQEVENT = VIDIOC_DQEVENT;
const unsigned long CShim_VIDIOC_G_DV_TIMINGS = VIDIOC_G_DV_TIMINGS;
const unsigned long CShim_VIDIOC_QUERY_DV_TIMINGS = VIDIOC_QUERY_DV_TIMINGS;
const unsigned long CShim_VIDIOC_S_DV_TIMINGS = VIDIOC_S_DV_TIMINGS;

// Set once at start-up, before any library call can log; read from any thread afterwards.
static CShim_log_sink av_sink;
static CShim_log_sink alsa_sink;

static void av_log_trampoline(void *avcl, int level, const char *fmt, va_list args) {
    if (level > av_log_get_level() || av_sink == NULL) return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line2(avcl, level, fmt, args, line, sizeof line, &print_prefix);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = 0;
    if (length > 0) av_sink(level, line);
}

void CShim_install_av_log_sink(CShim_log_sink sink) {
    av_sink = sink;
    av_log_set_callback(av_log_trampoline);
}

static void alsa_log_trampoline(const char *file, int line, const char *function, int err,
                                const char *fmt, ...) {
    (void)file; (void)line;
    if (alsa_sink == NULL) return;
    char text[1024];
    va_list args;
    va_start(args, fmt);
    int used = snprintf(text, sizeof text, "ALSA: %s: ", function ? function : "?");
    if (used < 0) used = 0;
    if ((size_t)used < sizeof text) vsnprintf(text + used, sizeof text - used, fmt, args);
    va_end(args);
    if (err != 0) {
        size_t length = strlen(text);
        snprintf(text + length, sizeof text - length, ": %s", snd_strerror(err));
    }
    alsa_sink(AV_LOG_ERROR, text);
}

void CShim_install_alsa_log_sink(CShim_log_sink sink) {
    alsa_sink = sink;
    snd_lib_error_set_handler(alsa_log_trampoline);
}

int CShim_set_thread_name(pthread_t thread, const char *name) {
    return pthread_setname_np(thread, name);
}

#define CSHIM_TEXT(x) #x
#define CSHIM_NUMBER_TEXT(x) CSHIM_TEXT(x)
static const char avdevice_soname[] = "libavdevice.so." CSHIM_NUMBER_TEXT(LIBAVDEVICE_VERSION_MAJOR);

static pthread_once_t avdevice_once = PTHREAD_ONCE_INIT;
static void (*avdevice_register_all_function)(void);
static unsigned (*avdevice_version_function)(void);
static char avdevice_error[512];

static void avdevice_load(void) {
    // RTLD_LAZY, as the loader binds linked libraries: binding every call of the 70 libraries
    // up front would cost more than all of them take at run time.
    void *handle = dlopen(avdevice_soname, RTLD_LAZY | RTLD_LOCAL);
    if (handle != NULL) {
        avdevice_register_all_function = (void (*)(void))dlsym(handle, "avdevice_register_all");
        avdevice_version_function = (unsigned (*)(void))dlsym(handle, "avdevice_version");
    }
    if (avdevice_register_all_function == NULL || avdevice_version_function == NULL) {
        const char *why = dlerror();
        snprintf(avdevice_error, sizeof avdevice_error, "%s", why ? why : avdevice_soname);
        avdevice_register_all_function = NULL;
        avdevice_version_function = NULL;
        return;
    }
    avdevice_register_all_function();
}

int CShim_avdevice_register_all(void) {
    pthread_once(&avdevice_once, avdevice_load);
    if (avdevice_register_all_function != NULL) return 0;
    av_log(NULL, AV_LOG_ERROR, "cannot load libavdevice: %s\n", avdevice_error);
    return -1;
}

unsigned CShim_avdevice_version(void) {
    pthread_once(&avdevice_once, avdevice_load);
    return avdevice_version_function != NULL ? avdevice_version_function() : 0;
}
