"""loom audio --format mp3/opus/m4a --bit-rate: ffprobe reports the codec and a bit rate near the one asked
for, a higher rate makes a larger file, and --bit-rate without an FFmpeg-encoded format is refused."""
import json
import subprocess


def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-print_format", "json", "-show_streams", "-show_format", str(path)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_audio_bit_rate_for_mp3_opus_m4a(run_loom, media, tmp_path):
    src = media / "audio" / "exo_bear.flac"  # 48 kHz stereo, 2.7 s
    for fmt, codec, low, high in (("mp3", "mp3", 96000, 192000), ("opus", "opus", 48000, 128000),
                                  ("m4a", "aac", 96000, 192000)):
        sizes = []
        for rate in (low, high):
            out = tmp_path / f"{fmt}{rate}"
            result = run_loom("audio", src, "-o", out, "--format", fmt, "--bit-rate", rate, "-q")
            assert result.returncode == 0, result.stderr
            f = out / f"exo_bear.{fmt}"
            p = probe(f)
            stream = p["streams"][0]
            assert stream["codec_name"] == codec
            assert int(stream["channels"]) == 2
            measured = int(stream.get("bit_rate", p["format"]["bit_rate"]))
            assert abs(measured - rate) <= 0.2 * rate, (fmt, rate, measured)
            sizes.append(f.stat().st_size)
        assert sizes[1] > sizes[0], fmt


def test_audio_bit_rate_needs_a_lossy_ffmpeg_format(run_loom, media, tmp_path):
    src = media / "audio" / "exo_bear.flac"
    for args in (("--bit-rate", 128000), ("--format", "flac", "--bit-rate", 128000),
                 ("--format", "ogg", "--bit-rate", 128000), ("--format", "mp3", "--bit-rate", 0)):
        result = run_loom("audio", src, "-o", tmp_path / "out", *args)
        assert result.returncode == 2, args
        assert "--bit-rate" in result.stderr, (args, result.stderr)
    assert not (tmp_path / "out").exists()
    # A rate the encoder refuses fails the file (exit 1) and writes nothing.
    result = run_loom("audio", src, "-o", tmp_path / "bad", "--format", "mp3", "--bit-rate", 1000000, "-q")
    assert result.returncode == 1
    assert not list((tmp_path / "bad").glob("*.mp3")) if (tmp_path / "bad").exists() else True
