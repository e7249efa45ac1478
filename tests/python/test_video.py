"""loom.decoders.VideoDecoder, loom.samplers and loom.encoders.VideoEncoder against PyAV and the ffmpeg CLI
on real media (tests/video/decoder_test.cc holds the C++ side of the same comparisons).

References: frame counts and pts from PyAV's decode of the stream (pts to 1e-9 s); pixels from the ffmpeg
CLI's rgb24 conversion with -sws_flags bilinear (the converter and flags loom uses; loom converts each
frame with its own colour matrix and range, as the CLI's scale filter does): equal, byte for byte, on
every file here (the C++ test allows 2 per channel for the whole corpus). Encoders: decoded back with
PyAV (frame count, size, PSNR; bit-exact for ffv1).
"""
import multiprocessing
import os
import pickle
import subprocess
import threading

import av
import numpy as np
import pytest
import torch

import loom
from loom.decoders import Frame, FrameBatch, VideoDecoder
from loom.encoders import VideoEncoder
from loom import samplers

# Small files covering the codecs and containers: H.264 (several streams; 10-bit), HEVC, AV1, VP9, H.263
# in 3GP, and a rotated MOV.
CORPUS = ["nasa_13013.mp4", "h264_10bits.mp4", "h265_video.mp4", "av1_video.mkv", "exo_bear-vp9.webm",
          "exo_video_desks.3gp", "decord_video_90.mov"]


@pytest.fixture(autouse=True)
def torch_output():
    previous = loom.get_output_type()
    loom.set_output_type("torch")
    yield
    loom.set_output_type(previous)


def video(media, name="nasa_13013.mp4"):
    return str(media / "video" / name)


def pyav_pts(path, stream_index):
    with av.open(path, metadata_errors="ignore") as container:
        stream = container.streams[stream_index]
        return [float(frame.pts * stream.time_base) for frame in container.decode(stream)]


def ffmpeg_rgb24(path, stream_index, indices, height, width):
    """Frames `indices` (sorted, unique; presentation order) as the ffmpeg CLI converts them: [N, H, W, 3]."""
    select = "select=" + "+".join("eq(n\\,%d)" % i for i in indices)
    cmd = ["ffmpeg", "-v", "error", "-noautorotate", "-i", path, "-map", "0:%d" % stream_index, "-vf", select,
           "-vsync", "0", "-sws_flags", "bilinear", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"]
    raw = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return np.frombuffer(raw, dtype=np.uint8).reshape(len(indices), height, width, 3)


def max_diff(a, b):
    return int(np.abs(np.asarray(a, dtype=np.int16) - np.asarray(b, dtype=np.int16)).max())


# ---- Decoding against PyAV and ffmpeg ----


@pytest.mark.parametrize("name", CORPUS)
def test_count_and_pts_match_pyav(media, name):
    path = video(media, name)
    decoder = VideoDecoder(path)
    want = pyav_pts(path, decoder.metadata.stream_index)
    n = len(decoder)
    assert n == len(want) == decoder.metadata.num_frames == decoder.metadata.num_frames_from_content
    got = []
    for start in range(0, n, 64):
        batch = decoder.get_frames_in_range(start, min(start + 64, n))
        assert isinstance(batch, FrameBatch) and batch.pts_seconds.dtype == torch.float64
        assert batch.data.shape[0] == batch.pts_seconds.shape[0] == batch.duration_seconds.shape[0]
        assert bool((batch.duration_seconds > 0).all())
        got.extend(batch.pts_seconds.tolist())
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
    assert decoder.metadata.begin_stream_seconds == pytest.approx(want[0], abs=1e-9)
    assert decoder.metadata.end_stream_seconds > want[-1]
    for i in (0, n // 2, n - 1):
        frame = decoder.get_frame_at(i)
        assert isinstance(frame, Frame) and frame.pts_seconds == pytest.approx(want[i], abs=1e-9)


@pytest.mark.parametrize("name", CORPUS)
def test_frames_match_ffmpeg_rgb24(media, name):
    path = video(media, name)
    nchw = VideoDecoder(path)
    nhwc = VideoDecoder(path, dimension_order="NHWC")
    n, meta = len(nchw), nchw.metadata
    rng = np.random.default_rng(7)
    asked = [n // 2, 0, -1, int(rng.integers(n)), n // 2, int(rng.integers(n)), 0]
    batch = nchw.get_frames_at(asked)
    assert batch.data.dtype == torch.uint8 and tuple(batch.data.shape) == (len(asked), 3, meta.height, meta.width)
    hwc = nhwc.get_frames_at(asked).data
    assert tuple(hwc.shape) == (len(asked), meta.height, meta.width, 3)
    assert torch.equal(hwc, batch.data.permute(0, 2, 3, 1))
    normalized = [i % n for i in asked]
    unique = sorted(set(normalized))
    ref = ffmpeg_rgb24(path, meta.stream_index, unique, meta.height, meta.width)
    for j, i in enumerate(normalized):
        want = ref[unique.index(i)]
        assert np.array_equal(hwc[j].numpy(), want), f"frame {i}: max diff {max_diff(hwc[j].numpy(), want)}"
        assert torch.equal(nchw[asked[j]], batch.data[j])


def test_indexing_and_slices(media):
    decoder = VideoDecoder(video(media))
    n = len(decoder)
    assert torch.equal(decoder[-1], decoder[n - 1])
    assert torch.equal(decoder[np.int64(5)], decoder.get_frame_at(5).data)
    assert torch.equal(decoder[torch.tensor(7)], decoder[7])
    for key in (slice(10, 20), slice(3, 40, 7), slice(-5, None), slice(None, 4), slice(50, 40, -3),
                slice(8, 8), slice(n - 2, n + 100), slice(n, None), slice(-1000, 5), slice(None, None, -40),
                slice(3, -1000, -1)):
        want = list(range(*key.indices(n)))
        got = decoder[key]
        assert got.shape[0] == len(want), key
        if want:
            assert torch.equal(got, decoder.get_frames_at(want).data), key
    for bad in (n, -n - 1, 10**9):
        with pytest.raises(IndexError):
            decoder[bad]
        with pytest.raises(IndexError):
            decoder.get_frame_at(bad)
        with pytest.raises(IndexError):
            decoder.get_frames_at([0, bad])
    with pytest.raises(TypeError):
        decoder["0"]


def test_get_frames_at_order_and_repeats(media):
    decoder = VideoDecoder(video(media))
    asked = [300, 2, 300, -1, 0]
    batch = decoder.get_frames_at(torch.tensor(asked))
    for j, i in enumerate(asked):
        frame = decoder.get_frame_at(i)
        assert torch.equal(batch.data[j], frame.data)
        assert batch.pts_seconds[j].item() == frame.pts_seconds
        assert batch.duration_seconds[j].item() == frame.duration_seconds
    assert isinstance(batch[1], Frame) and torch.equal(batch[1].data, batch.data[1])
    data, pts, duration = decoder.get_frame_at(3)
    assert pts == decoder.get_frame_at(3).pts_seconds and duration > 0


def test_get_frames_in_range(media):
    decoder = VideoDecoder(video(media))
    n = len(decoder)
    batch = decoder.get_frames_in_range(5, 30, 4)
    assert torch.equal(batch.data, decoder.get_frames_at(list(range(5, 30, 4))).data)
    assert decoder.get_frames_in_range(n - 3, n + 50).data.shape[0] == 3
    with pytest.raises(IndexError):
        decoder.get_frames_in_range(n, n + 1)
    with pytest.raises(IndexError):
        decoder.get_frames_in_range(10, 5)
    with pytest.raises(ValueError):
        decoder.get_frames_in_range(0, 5, 0)


def test_played_at_and_in_range_follow_pyav_pts(media):
    path = video(media)
    decoder = VideoDecoder(path)
    pts = pyav_pts(path, decoder.metadata.stream_index)
    n, end = len(pts), decoder.metadata.end_stream_seconds
    times, expected = [], []
    for i in (0, n // 2, n - 1):
        following = pts[i + 1] if i + 1 < n else end
        times += [pts[i], (pts[i] + following) / 2]
        expected += [i, i]
    batch = decoder.get_frames_played_at(times)
    np.testing.assert_allclose(batch.pts_seconds.numpy(), [pts[i] for i in expected], rtol=0, atol=1e-9)
    assert torch.equal(batch.data, decoder.get_frames_at(expected).data)
    assert decoder.get_frame_played_at(times[3]).pts_seconds == pytest.approx(pts[n // 2], abs=1e-9)
    played = decoder.get_frames_played_in_range(pts[1], pts[n - 1])
    assert played.data.shape[0] == n - 2
    assert played.pts_seconds[0].item() == pytest.approx(pts[1], abs=1e-9)
    assert played.pts_seconds[-1].item() == pytest.approx(pts[n - 2], abs=1e-9)
    assert decoder.get_frames_played_in_range(pts[3], pts[3]).data.shape[0] == 0
    for bad in (end, end + 1, -0.5):
        with pytest.raises(IndexError):
            decoder.get_frame_played_at(bad)
        with pytest.raises(IndexError):
            decoder.get_frames_played_at([pts[0], bad])
    with pytest.raises(ValueError):
        decoder.get_frames_played_in_range(pts[5], pts[2])


def test_metadata_matches_the_stream(media):
    path = video(media)
    decoder = VideoDecoder(path)
    meta = decoder.metadata
    with av.open(path) as container:
        stream = container.streams[meta.stream_index]
        assert stream.type == "video"
        assert (meta.width, meta.height) == (stream.codec_context.width, stream.codec_context.height)
        assert meta.codec == stream.codec_context.name
        assert meta.average_fps_from_header == pytest.approx(float(stream.average_rate))
    assert meta.num_frames == len(decoder)
    assert meta.duration_seconds == pytest.approx(meta.end_stream_seconds - meta.begin_stream_seconds)
    assert meta.average_fps == pytest.approx(meta.num_frames_from_content / meta.duration_seconds)
    assert meta.key_frame_indices[0] == 0
    approximate = VideoDecoder(path, seek_mode="approximate")
    assert approximate.metadata.num_frames_from_content is None
    assert approximate.metadata.key_frame_indices == []
    assert torch.equal(approximate[10], decoder[10])  # a constant-rate file with a right header


def test_stream_index_selects_the_stream(media):
    path = video(media)
    with av.open(path) as container:
        video_streams = [s.index for s in container.streams if s.type == "video"]
    assert len(video_streams) > 1
    for index in video_streams:
        decoder = VideoDecoder(path, stream_index=index)
        assert decoder.metadata.stream_index == index
        assert len(decoder) == len(pyav_pts(path, index))


def test_sources_in_memory_equal_the_file(media):
    path = video(media)
    from_path = VideoDecoder(path)
    data = open(path, "rb").read()
    for source in (data, bytearray(data), torch.frombuffer(bytearray(data), dtype=torch.uint8),
                   np.frombuffer(data, dtype=np.uint8)):
        decoder = VideoDecoder(source)
        assert len(decoder) == len(from_path)
        assert torch.equal(decoder[100], from_path[100])
    buffer = bytearray(data)
    decoder = VideoDecoder(buffer)
    buffer[:] = bytes(len(buffer))  # the decoder owns a copy
    assert torch.equal(decoder[200], from_path[200])


def test_options_are_checked(media):
    path = video(media)
    with pytest.raises(ValueError, match="dimension_order"):
        VideoDecoder(path, dimension_order="CHW")
    with pytest.raises(ValueError, match="seek_mode"):
        VideoDecoder(path, seek_mode="fast")
    for device in ("gpu", "cuda:", "cuda:x", "cuda:-1", "CUDA"):
        with pytest.raises(ValueError, match="device must be"):
            VideoDecoder(path, device=device)
    with pytest.raises(TypeError):
        VideoDecoder(12)
    assert torch.equal(VideoDecoder(path, num_ffmpeg_threads=0)[30], VideoDecoder(path)[30])


@pytest.mark.skipif(loom.cuda.device_count() > 0, reason="a CUDA device is present")
def test_cuda_device_without_a_device(media):
    """device='cuda' where no device is usable: UnsupportedError naming the file; cpu_fallback decodes on
    the CPU (the same frames), and pickles with its options."""
    path = video(media)
    for device in ("cuda", "cuda:0", "cuda:3"):
        with pytest.raises(loom.UnsupportedError, match="cpu_fallback") as caught:
            VideoDecoder(path, device=device)
        assert str(path) in str(caught.value)
        assert f"device {device if ':' in device else 'cuda:0'}" in str(caught.value)
    fallback = VideoDecoder(path, device="cuda", cpu_fallback=True)
    assert fallback[7].device.type == "cpu"
    assert torch.equal(fallback[7], VideoDecoder(path)[7])
    again = pickle.loads(pickle.dumps(fallback))
    assert torch.equal(again[7], fallback[7])
    options = fallback.__reduce__()[1][1]
    assert options["device"] == "cuda" and options["cpu_fallback"] is True


def test_errors(media, tmp_path):
    missing = tmp_path / "missing.mp4"
    with pytest.raises(loom.IoError) as caught:
        VideoDecoder(missing)
    assert str(missing) in str(caught.value)
    corrupt = tmp_path / "corrupt.mp4"
    corrupt.write_bytes(np.random.default_rng(3).integers(0, 256, 20000, dtype=np.uint8).tobytes())
    with pytest.raises(loom.InvalidInputError):
        VideoDecoder(corrupt)
    with pytest.raises(loom.InvalidInputError):
        VideoDecoder(b"not a video at all")
    no_video = media / "audio" / "exo_bear.flac"
    with pytest.raises(loom.InvalidInputError):
        VideoDecoder(no_video)


def test_threads_sharing_a_decoder_take_turns(media):
    decoder = VideoDecoder(video(media))
    want = {i: decoder[i] for i in (0, 120, 250, 389)}
    failures = []

    def work(order):
        for i in order * 3:
            if not torch.equal(decoder.get_frame_at(i).data, want[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(order,)) for order in ([0, 250, 120, 389], [389, 0, 250, 120])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# ---- Pickling, fork, multiprocessing ----


def test_pickle_round_trip(media):
    path = video(media)
    for decoder in (VideoDecoder(path, dimension_order="NHWC", seek_mode="approximate"),
                    VideoDecoder(open(path, "rb").read(), stream_index=3)):
        copy = pickle.loads(pickle.dumps(decoder))
        assert copy.metadata == decoder.metadata
        assert len(copy) == len(decoder)
        assert torch.equal(copy.get_frames_at([0, 57, -1]).data, decoder.get_frames_at([0, 57, -1]).data)


def test_decode_after_fork(media):
    decoder = VideoDecoder(video(media))
    before = decoder.get_frames_at([3, 150]).data
    pid = os.fork()
    if pid == 0:  # the child: decode with the inherited decoder, report through the exit status
        status = 1
        try:
            status = 0 if torch.equal(decoder.get_frames_at([3, 150]).data, before) else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert torch.equal(decoder.get_frames_at([3, 150]).data, before)


def decode_in_worker(decoder, indices):
    return decoder.get_frames_at(indices).data.numpy()


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_decoders_cross_processes(media, method):
    path = video(media)
    decoders = [VideoDecoder(path), VideoDecoder(open(path, "rb").read(), dimension_order="NHWC")]
    context = multiprocessing.get_context(method)
    with context.Pool(1) as pool:
        for decoder in decoders:
            got = pool.apply(decode_in_worker, (decoder, [9, 250]))
            assert np.array_equal(got, decoder.get_frames_at([9, 250]).data.numpy())


# ---- Samplers ----


def test_index_samplers(media):
    decoder = VideoDecoder(video(media))
    n = len(decoder)
    pts = decoder.get_frames_in_range(0, n).pts_seconds
    clips = samplers.clips_at_random_indices(decoder, num_clips=4, num_frames_per_clip=3,
                                             num_indices_between_frames=5, seed=11)
    assert tuple(clips.data.shape) == (4, 3, 3, decoder.metadata.height, decoder.metadata.width)
    assert tuple(clips.pts_seconds.shape) == (4, 3) and clips.pts_seconds.dtype == torch.float64
    for c in range(4):
        start = int(torch.nonzero(pts == clips.pts_seconds[c, 0])[0])
        indices = [start, start + 5, start + 10]
        assert torch.equal(clips.pts_seconds[c], pts[indices])
        assert torch.equal(clips.data[c], decoder.get_frames_at(indices).data)
    again = samplers.clips_at_random_indices(decoder, num_clips=4, num_frames_per_clip=3,
                                             num_indices_between_frames=5, seed=11)
    assert torch.equal(again.pts_seconds, clips.pts_seconds)
    torch.manual_seed(5)
    first = samplers.clips_at_random_indices(decoder, num_clips=2)
    torch.manual_seed(5)
    assert torch.equal(samplers.clips_at_random_indices(decoder, num_clips=2).pts_seconds, first.pts_seconds)

    regular = samplers.clips_at_regular_indices(decoder, num_clips=5, num_frames_per_clip=2,
                                                sampling_range_start=10, sampling_range_end=100)
    starts = torch.linspace(10, 99, 5, dtype=torch.int64).tolist()  # TorchCodec's spacing
    for c, start in enumerate(starts):
        assert torch.equal(regular.pts_seconds[c], pts[[start, start + 1]])
    assert isinstance(regular[0], FrameBatch) and torch.equal(regular[0].data, regular.data[0])


def test_index_sampler_policies(media):
    decoder = VideoDecoder(video(media))
    n = len(decoder)
    pts = decoder.get_frames_in_range(0, n).pts_seconds
    options = dict(num_clips=1, num_frames_per_clip=5, num_indices_between_frames=2, sampling_range_start=n - 5,
                   sampling_range_end=n - 4)
    repeat = samplers.clips_at_regular_indices(decoder, **options)
    assert torch.equal(repeat.pts_seconds[0], pts[[n - 5, n - 3, n - 1, n - 1, n - 1]])
    wrap = samplers.clips_at_regular_indices(decoder, policy="wrap", **options)
    assert torch.equal(wrap.pts_seconds[0], pts[[n - 5, n - 3, n - 1, n - 5, n - 3]])
    with pytest.raises(loom.InvalidInputError):
        samplers.clips_at_regular_indices(decoder, policy="error", **options)
    with pytest.raises(ValueError, match="policy"):
        samplers.clips_at_regular_indices(decoder, policy="clamp")
    with pytest.raises(loom.InvalidInputError, match="num_clips"):
        samplers.clips_at_random_indices(decoder, num_clips=0)


def test_timestamp_samplers(media):
    decoder = VideoDecoder(video(media))
    meta = decoder.metadata
    regular = samplers.clips_at_regular_timestamps(decoder, seconds_between_clip_starts=2.0, num_frames_per_clip=3,
                                                   seconds_between_frames=0.5, sampling_range_start=1.0,
                                                   sampling_range_end=9.0)
    starts = [1.0, 3.0, 5.0, 7.0]
    assert tuple(regular.data.shape[:2]) == (4, 3)
    times = [s + k * 0.5 for s in starts for k in range(3)]
    played = decoder.get_frames_played_at(times)
    assert torch.equal(regular.pts_seconds.reshape(-1), played.pts_seconds)
    assert torch.equal(regular.data.reshape(played.data.shape), played.data)
    random_clips = samplers.clips_at_random_timestamps(decoder, num_clips=6, num_frames_per_clip=2, seed=3)
    assert tuple(random_clips.pts_seconds.shape) == (6, 2)
    assert bool((random_clips.pts_seconds >= meta.begin_stream_seconds).all())
    assert bool((random_clips.pts_seconds < meta.end_stream_seconds).all())
    same = samplers.clips_at_random_timestamps(decoder, num_clips=6, num_frames_per_clip=2, seed=3)
    assert torch.equal(same.data, random_clips.data)
    with pytest.raises(loom.InvalidInputError):
        samplers.clips_at_regular_timestamps(decoder, seconds_between_clip_starts=-1.0)


# ---- Encoder ----


def psnr(a, b):
    mse = np.mean((np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0**2 / mse)


def pyav_rgb(path_or_file):
    with av.open(path_or_file) as container:
        stream = container.streams.video[0]
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(stream)], stream


def test_video_encoder_round_trip(media, tmp_path):
    frames = VideoDecoder(video(media))[0:40]  # [40, 3, 270, 480]
    dest = tmp_path / "clip.mp4"
    VideoEncoder(frames, frame_rate=30).to_file(dest, crf=18, preset="fast")
    decoded, stream = pyav_rgb(str(dest))
    assert len(decoded) == 40
    assert (stream.codec_context.width, stream.codec_context.height) == (480, 270)
    assert stream.codec_context.name == "h264"
    assert float(stream.average_rate) == pytest.approx(30)
    # PyAV's rgb24 uses BT.601 whatever the tag; the clip is SD, which loom encodes as BT.601 too.
    for j in (0, 20, 39):
        assert psnr(decoded[j], frames[j].permute(1, 2, 0).numpy()) > 32, f"frame {j}"


def test_video_encoder_lossless_and_to_tensor(media, tmp_path):
    frames = VideoDecoder(video(media, "h265_video.mp4"))[:]
    encoder = VideoEncoder(frames, frame_rate=25)
    dest = tmp_path / "lossless.mkv"
    encoder.to_file(dest, codec="ffv1", pixel_format="bgr0")
    decoded, _ = pyav_rgb(str(dest))
    assert len(decoded) == frames.shape[0]
    assert np.array_equal(np.stack(decoded), frames.permute(0, 2, 3, 1).numpy())
    data = encoder.to_tensor("mkv", codec="ffv1", pixel_format="bgr0")
    assert data.dtype == torch.uint8 and data.ndim == 1
    assert bytes(data.numpy()) == dest.read_bytes()
    assert torch.equal(VideoDecoder(data)[:], frames)
    webm = encoder.to_tensor("webm", extra_options={"deadline": "realtime", "cpu-used": "8"})
    assert len(VideoDecoder(webm)) == frames.shape[0]


def test_video_encoder_errors(tmp_path):
    frames = torch.zeros(2, 3, 64, 64, dtype=torch.uint8)
    with pytest.raises(ValueError):
        VideoEncoder(torch.zeros(2, 64, 64, dtype=torch.uint8), frame_rate=30)
    with pytest.raises(ValueError):
        VideoEncoder(frames, frame_rate=0)
    with pytest.raises(loom.UnsupportedError):
        VideoEncoder(frames, frame_rate=30).to_file(tmp_path / "clip.xyz")
    with pytest.raises(loom.UnsupportedError):
        VideoEncoder(frames, frame_rate=30).to_tensor("mp4", codec="no-such-encoder")
    with pytest.raises(loom.InvalidInputError):
        VideoEncoder(frames, frame_rate=30).to_file(tmp_path / "clip.mp4", extra_options={"no_such_option": "1"})
    assert not (tmp_path / "clip.mp4").exists()


def test_apply_rotation_turns_phone_clips_and_pickles(media):
    """loom's apply_rotation: a -90 degree clip comes back turned a quarter (its pixels are checked
    against ffmpeg's autorotate in tests/video/rotation_test.cc), and the option survives pickling."""
    path = media / "video/decord_video_90.mov"
    coded = VideoDecoder(path)
    upright = VideoDecoder(path, apply_rotation=True)
    assert tuple(coded[0].shape) == (3, 320, 568)
    assert tuple(upright[0].shape) == (3, 568, 320)
    assert upright.metadata.width == coded.metadata.width  # metadata keeps the coded size
    again = pickle.loads(pickle.dumps(upright))
    assert torch.equal(again[0], upright[0])
