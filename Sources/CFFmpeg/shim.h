#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/parseutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <errno.h>

// AVERROR() and friends are function-like macros, which Swift does not import.
static inline int CFFmpeg_AVERROR(int errnum) { return AVERROR(errnum); }
static const int CFFmpeg_AVERROR_EOF = AVERROR_EOF;
static const int CFFmpeg_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int CFFmpeg_AVERROR_EXIT = AVERROR_EXIT;
static const int CFFmpeg_AVERROR_INPUT_CHANGED = AVERROR_INPUT_CHANGED;
static const int64_t CFFmpeg_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
static const int CFFmpeg_AV_TIME_BASE = AV_TIME_BASE;
