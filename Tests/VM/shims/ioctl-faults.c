/*
 * Device faults on demand, for the guest tests: an LD_PRELOAD library that wraps ioctl(2) (and
 * close(2), to know when a handle goes) and makes chosen calls fail the way flaky hardware does.
 * Everything else passes through to the C library's ioctl. Configured by environment variables;
 * with none set it changes nothing. Each fault it makes is one line in FAULT_LOG (if set):
 * "<CLOCK_REALTIME ns> <what>".
 *
 * A camera whose VIDIOC_DQBUF fails with EIO (uvcvideo on a flaky cable or hub):
 *   FAULT_DQBUF_FROM=M    the Mth VIDIOC_DQBUF of the process (from 1) is the first to fail
 *   FAULT_DQBUF_COUNT=N   N calls fail; -1: every call on that handle fails until it is closed
 *                         (a vb2 queue marked in error, which only STREAMOFF or a new open clears)
 *   FAULT_DQBUF_KEEP=1    fail without dequeuing: the buffer stays queued. Without it each failing
 *                         call dequeues a filled buffer and queues it again before failing, as the
 *                         V4L2 spec allows ("the driver might dequeue an (empty) buffer despite
 *                         returning an error"): that frame is lost, and the call takes as long
 *                         as a good one. Logged: "dqbuf N ok SEQ TIME" for every call that succeeds
 *                         (TIME: the buffer's timestamp in microseconds),
 *                         "dqbuf N eio SEQ" (the sequence number of the buffer swallowed, or -)
 *                         for every one that fails.
 *   FAULT_DQBUF_LOG=1     no fault: every VIDIOC_DQBUF that succeeds is logged as above, so a test
 *                         knows what the camera really delivered and when.
 *
 * A camera that takes some controls of a VIDIOC_S_EXT_CTRLS batch and fails the rest:
 *   FAULT_CTRL_ID=0x...   a batch holding this control id is written without it (the real ioctl
 *                         with the others), then fails with EIO and error_idx = count (the
 *                         kernel's "cannot say which"). Logged: "s_ext_ctrls applied K of N, eio".
 *   FAULT_CTRL_STUCK=1    after that first failure, every VIDIOC_S_EXT_CTRLS fails with EIO and
 *                         writes nothing (a camera that stopped taking writes). "s_ext_ctrls eio".
 *   FAULT_CTRL_FROM=N     the Nth VIDIOC_S_EXT_CTRLS of the process (from 1) and every later one
 *                         fail with EIO and write nothing, whatever they hold. "s_ext_ctrls eio".
 *
 * A microphone whose reads fail for good (a USB sound card pulled: ALSA's reads then fail, and
 * FFmpeg's alsa input gives AVERROR(EIO) for anything but an overrun):
 *   FAULT_READI_FROM=M    the Mth SNDRV_PCM_IOCTL_READI_FRAMES of the process and every one after
 *                         it fail with EIO. Logged: "readi N ok FRAMES" for every read that
 *                         succeeds, "readi N eio" for the first that fails.
 *
 * A sound card whose mixer refuses one element's write:
 *   FAULT_ELEM_NAME=NAME  SNDRV_CTL_IOCTL_ELEM_WRITE of the control NAME ("Mic Capture Switch")
 *                         fails with EIO and writes nothing. "elem_write NAME eio".
 *   FAULT_ELEM_STUCK=1    after that first failure, every element write fails with EIO.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/videodev2.h>
#include <sound/asound.h>

static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_close)(int);

static long dqbuf_from, dqbuf_count;
static int dqbuf_keep, dqbuf_log;
static unsigned long ctrl_id;
static int ctrl_stuck;
static const char *elem_name;
static int elem_stuck;
static int log_fd = -1;

static long dqbuf_calls;
/* The handle a "until closed" failure holds on to: -1 before it starts, -2 once it was closed. */
static int failing_fd = -1;
static int ctrl_failed, elem_failed;
static long readi_from, readi_calls;
static long ctrl_from, ctrl_calls;

static long number(const char *name, long otherwise) {
    const char *text = getenv(name);
    return text && *text ? strtol(text, NULL, 0) : otherwise;
}

__attribute__((constructor)) static void start(void) {
    real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    dqbuf_from = number("FAULT_DQBUF_FROM", 0);
    dqbuf_count = number("FAULT_DQBUF_COUNT", 0);
    dqbuf_keep = number("FAULT_DQBUF_KEEP", 0) != 0;
    dqbuf_log = number("FAULT_DQBUF_LOG", 0) != 0;
    ctrl_id = (unsigned long)number("FAULT_CTRL_ID", 0);
    ctrl_stuck = number("FAULT_CTRL_STUCK", 0) != 0;
    ctrl_from = number("FAULT_CTRL_FROM", 0);
    elem_name = getenv("FAULT_ELEM_NAME");
    if (elem_name && !*elem_name) elem_name = NULL;
    elem_stuck = number("FAULT_ELEM_STUCK", 0) != 0;
    readi_from = number("FAULT_READI_FROM", 0);
    const char *path = getenv("FAULT_LOG");
    if (path && *path) log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* One line, one write(2): lines from two threads do not interleave. */
static void note(const char *format, ...) {
    if (log_fd < 0) return;
    char line[256];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int used = snprintf(line, sizeof line, "%lld%09ld ", (long long)now.tv_sec, now.tv_nsec);
    va_list args;
    va_start(args, format);
    used += vsnprintf(line + used, sizeof line - used - 1, format, args);
    va_end(args);
    if (used > (int)sizeof line - 2) used = sizeof line - 2;
    line[used++] = '\n';
    (void)!write(log_fd, line, used);
}

static int fail(int code) {
    errno = code;
    return -1;
}

static int dqbuf(int fd, struct v4l2_buffer *buffer) {
    long call = __atomic_add_fetch(&dqbuf_calls, 1, __ATOMIC_SEQ_CST);
    int failing;
    if (dqbuf_count < 0) {
        if (failing_fd == -1 && dqbuf_from > 0 && call >= dqbuf_from) failing_fd = fd;
        failing = failing_fd == fd;
    } else {
        failing = dqbuf_from > 0 && call >= dqbuf_from && call < dqbuf_from + dqbuf_count;
    }
    if (!failing) {
        int result = real_ioctl(fd, VIDIOC_DQBUF, buffer);
        if (result == 0)
            note("dqbuf %ld ok %u %lld", call, buffer->sequence,
                 (long long)buffer->timestamp.tv_sec * 1000000 + buffer->timestamp.tv_usec);
        return result;
    }
    if (dqbuf_keep) {
        note("dqbuf %ld eio -", call);
        return fail(EIO);
    }
    int result = real_ioctl(fd, VIDIOC_DQBUF, buffer);
    if (result < 0) return result; /* EAGAIN, EINTR, a real error: as the driver says */
    struct v4l2_buffer again = *buffer;
    real_ioctl(fd, VIDIOC_QBUF, &again);
    note("dqbuf %ld eio %u", call, buffer->sequence);
    return fail(EIO);
}

static int set_controls(int fd, struct v4l2_ext_controls *set) {
    long call = __atomic_add_fetch(&ctrl_calls, 1, __ATOMIC_SEQ_CST);
    if ((ctrl_failed && ctrl_stuck) || (ctrl_from > 0 && call >= ctrl_from)) {
        note("s_ext_ctrls eio");
        set->error_idx = set->count;
        return fail(EIO);
    }
    int holds = 0;
    for (unsigned i = 0; i < set->count; i++) holds |= set->controls[i].id == ctrl_id;
    if (!holds) return real_ioctl(fd, VIDIOC_S_EXT_CTRLS, set);
    /* The others go in, then the batch fails as a whole. */
    struct v4l2_ext_control rest[set->count];
    unsigned kept = 0;
    for (unsigned i = 0; i < set->count; i++)
        if (set->controls[i].id != ctrl_id) rest[kept++] = set->controls[i];
    unsigned applied = 0;
    if (kept > 0) {
        struct v4l2_ext_controls partial = *set;
        partial.count = kept;
        partial.controls = rest;
        if (real_ioctl(fd, VIDIOC_S_EXT_CTRLS, &partial) == 0) applied = kept;
    }
    ctrl_failed = 1;
    note("s_ext_ctrls applied %u of %u, eio", applied, set->count);
    set->error_idx = set->count;
    return fail(EIO);
}

static int write_element(int fd, struct snd_ctl_elem_value *value) {
    const char *name = (const char *)value->id.name;
    if ((elem_failed && elem_stuck) || strncmp(name, elem_name, sizeof value->id.name) == 0) {
        elem_failed = 1;
        note("elem_write %s eio", name);
        return fail(EIO);
    }
    return real_ioctl(fd, SNDRV_CTL_IOCTL_ELEM_WRITE, value);
}

static int read_frames(int fd, struct snd_xferi *transfer) {
    long call = __atomic_add_fetch(&readi_calls, 1, __ATOMIC_SEQ_CST);
    if (call >= readi_from) {
        if (call == readi_from) note("readi %ld eio", call);
        return fail(EIO);
    }
    int result = real_ioctl(fd, SNDRV_PCM_IOCTL_READI_FRAMES, transfer);
    if (result == 0) note("readi %ld ok %ld", call, (long)transfer->result);
    return result;
}

int ioctl(int fd, unsigned long request, ...) {
    va_list args;
    va_start(args, request);
    void *argument = va_arg(args, void *);
    va_end(args);
    if (request == VIDIOC_DQBUF && (dqbuf_from > 0 || dqbuf_log)) return dqbuf(fd, argument);
    if (request == VIDIOC_S_EXT_CTRLS && (ctrl_id != 0 || ctrl_from > 0)) return set_controls(fd, argument);
    if (request == SNDRV_CTL_IOCTL_ELEM_WRITE && elem_name) return write_element(fd, argument);
    if (request == SNDRV_PCM_IOCTL_READI_FRAMES && readi_from > 0) return read_frames(fd, argument);
    return real_ioctl(fd, request, argument);
}

int close(int fd) {
    if (fd >= 0 && fd == failing_fd) {
        failing_fd = -2;
        note("close %d: the failing handle is gone", fd);
    }
    return real_close(fd);
}
