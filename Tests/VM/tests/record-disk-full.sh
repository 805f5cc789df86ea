#!/usr/bin/env bash
# A disk that fills up while recording (issue 6): capture stops, keeps what was written, names
# the file and the cause, exits 74. Run in the guest because it mounts a small tmpfs.
# timeout: 180
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
need_capture

disk=$(mktemp -d)
mount -t tmpfs -o size=3m tmpfs "$disk"
trap 'umount "$disk"' EXIT

for ext in mp4 mkv nut; do
    options=(--preset ultrafast --crf 0)  # lossless H.264: 3 MB fill in a few seconds
    [[ $ext == nut ]] && options=()
    rc=0
    "$CAPTURE" record --video test --audio test "${options[@]}" --quiet "$disk/full.$ext" 2>"$VM_OUT/$ext.err" || rc=$?
    check_eq ".$ext on a full disk: exit 74" 74 "$rc"
    check ".$ext: stderr names the file and the full disk" \
        grep -q "^Error: $disk/full.$ext: disk full (no space left on device)" "$VM_OUT/$ext.err"
    frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
        -of default=noprint_wrappers=1:nokey=1 "$disk/full.$ext" || true)
    check ".$ext: what was written reads back ($frames frames)" test "${frames:-0}" -ge 2
    rm -f "$disk/full.$ext"
done

# An HLS playlist: FFmpeg's hls muxer does not report a failed write and would write the playlist
# again, empty, over the last whole one; the recorder stops first, and the playlist lists only
# whole segments, each of which decodes, and ends; a segment the disk cut short is not left beside it.
rc=0
"$CAPTURE" record --video test --audio test --preset ultrafast --crf 0 --segment-time 1 --quiet "$disk/full.m3u8" \
    2>"$VM_OUT/m3u8.err" || rc=$?
check_eq ".m3u8 on a full disk: exit 74" 74 "$rc"
check ".m3u8: stderr names the playlist and the full disk" \
    grep -q "^Error: $disk/full.m3u8: disk full (no space left on device)" "$VM_OUT/m3u8.err"
listed=$(grep -c '^full-[0-9]*\.ts$' "$disk/full.m3u8" || true)
check ".m3u8: the playlist lists whole segments ($listed)" test "${listed:-0}" -ge 1
[[ ${listed:-0} -ge 1 ]] || { sed 's/^/  playlist: /' "$disk/full.m3u8"; ls -l "$disk" | sed 's/^/  ls: /'; sed 's/^/  stderr: /' "$VM_OUT/m3u8.err"; }
# Every listed segment, one after the other, in one ffmpeg (its start is slow under emulation).
segments=$(grep '^full-[0-9]*\.ts$' "$disk/full.m3u8" | sed "s|^|$disk/|" | paste -sd '|' || true)
check ".m3u8: the listed segments decode" clean "concat:$segments"
check ".m3u8: no partial segment left" test -z "$(find "$disk" -name '*.tmp')"
check ".m3u8: the playlist is ended, its header kept" \
    bash -c "grep -qx '#EXT-X-ENDLIST' '$disk/full.m3u8' && grep -q '^#EXT-X-VERSION:' '$disk/full.m3u8'"
check_eq ".m3u8: every segment on disk is listed" "$(grep '^full-[0-9]*\.ts$' "$disk/full.m3u8" | sort)" \
    "$(cd "$disk" && ls full-*.ts | sort)"

finish
