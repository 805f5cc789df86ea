/*
 * Loads FFmpeg's libraries and does nothing else: the floor under any program that links them.
 *
 * The benchmark times it next to `ffmpeg -version` and `capture --version` to show how much of a
 * short command's wall time is the dynamic loader mapping and relocating libav* and the two
 * hundred libraries they pull in. One call into each library keeps the linker's --as-needed
 * from dropping it.
 */
#include "libav.h"

int main(void) {
    unsigned sum = avdevice_version() ^ avformat_version() ^ avcodec_version() ^ avfilter_version()
        ^ swscale_version() ^ swresample_version() ^ avutil_version();
    return sum == 0;
}
