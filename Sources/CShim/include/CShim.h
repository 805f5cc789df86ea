#ifndef CSHIM_H
#define CSHIM_H

#include <linux/videodev2.h>
#include <pthread.h>
#include <stdint.h>

// ioctl(2) is variadic, which Swift cannot call. Retries on EINTR.
int CShim_ioctl(int fd, unsigned long request, void *argument);

// The VIDIOC_* request numbers are built by function-like macros (_IOWR), which Swift does not
// import; these constants carry their values.
extern const unsigned long CShim_VIDIOC_QUERYCAP;
extern const unsigned long CShim_VIDIOC_STREAMOFF;
extern const unsigned long CShim_VIDIOC_ENUM_FMT;
extern const unsigned long CShim_VIDIOC_ENUM_FRAMESIZES;
extern const unsigned long CShim_VIDIOC_ENUM_FRAMEINTERVALS;
extern const unsigned long CShim_VIDIOC_G_FMT;
extern const unsigned long CShim_VIDIOC_G_PARM;
extern const unsigned long CShim_VIDIOC_QUERYCTRL;
extern const unsigned long CShim_VIDIOC_QUERY_EXT_CTRL;
extern const unsigned long CShim_VIDIOC_QUERYMENU;
extern const unsigned long CShim_VIDIOC_REQBUFS;
extern const unsigned long CShim_VIDIOC_G_CTRL;
extern const unsigned long CShim_VIDIOC_G_EXT_CTRLS;
extern const unsigned long CShim_VIDIOC_S_EXT_CTRLS;
extern const unsigned long CShim_VIDIOC_TRY_EXT_CTRLS;
extern const unsigned long CShim_VIDIOC_G_INPUT;
extern const unsigned long CShim_VIDIOC_ENUMINPUT;
extern const unsigned long CShim_VIDIOC_S_FMT;
extern const unsigned long CShim_VIDIOC_S_PARM;
extern const unsigned long CShim_VIDIOC_QUERYBUF;
extern const unsigned long CShim_VIDIOC_QBUF;
extern const unsigned long CShim_VIDIOC_DQBUF;
extern const unsigned long CShim_VIDIOC_STREAMON;
extern const unsigned long CShim_VIDIOC_SUBSCRIBE_EVENT;
extern const unsigned long CShim_VIDIOC_DQEVENT;
extern const unsigned long CShim_VIDIOC_G_DV_TIMINGS;
extern const unsigned long CShim_VIDIOC_QUERY_DV_TIMINGS;
extern const unsigned long CShim_VIDIOC_S_DV_TIMINGS;

/// Receives one formatted log line (without its trailing newline) from FFmpeg or libasound.
typedef void (*CShim_log_sink)(int level, const char *line);

// av_log_set_callback and snd_lib_error_set_handler take variadic or va_list callbacks, which
// Swift cannot write; these install C callbacks that format the line and hand it to `sink`.
void CShim_install_av_log_sink(CShim_log_sink sink);
void CShim_install_alsa_log_sink(CShim_log_sink sink);

// pthread_setname_np is a GNU extension, declared only with _GNU_SOURCE, which Swift's Glibc module
// is built without. Returns 0, or ERANGE for a name longer than 15 bytes.
int CShim_set_thread_name(pthread_t thread, const char *name);

// libavdevice needs some 70 libraries of its own (libavfilter, SDL, X11, OpenGL, JACK, OpenAL
// ...) that only opening a device uses; linked, the loader maps and relocates them all before
// main, for `list`, `probe` and every refusal too. So it is loaded here on first use instead
// (dlopen of the soname of the headers built against, once, from any thread).
// Registers libavdevice's inputs with libavformat (avdevice_register_all), so that
// av_find_input_format finds v4l2, alsa, pulse and lavfi. Returns 0, or -1 when the library
// cannot be loaded, after logging dlerror()'s text through av_log as an error.
int CShim_avdevice_register_all(void);
// avdevice_version() of the library CShim_avdevice_register_all loads, or 0 if it cannot be loaded.
unsigned CShim_avdevice_version(void);

#endif
