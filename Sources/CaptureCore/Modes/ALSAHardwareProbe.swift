internal import CALSA

/// What an ALSA capture PCM accepts, read from its hardware parameter space: the microphone's
/// side of probing, beside the camera's `CameraProber`.
extension ALSAPCM {
    /// The whole hardware parameter space (`snd_pcm_hw_params_any`), read with the
    /// `snd_pcm_hw_params_get_*_min/max` and `snd_pcm_hw_params_test_*` calls, which only refine
    /// a copy of the space and never install it.
    func capabilities() throws(ALSAControl.Failure) -> ALSACapabilities {
        let space = try HardwareParameters()
        let result = snd_pcm_hw_params_any(handle, space.pointer)
        guard result >= 0 else { throw ALSAControl.Failure(code: result) }
        let params = space.pointer

        var access: [String] = []
        for raw in 0...SND_PCM_ACCESS_LAST.rawValue {
            let value = snd_pcm_access_t(rawValue: raw)
            if snd_pcm_hw_params_test_access(handle, params, value) == 0,
                let name = ALSAText.string(snd_pcm_access_name(value))
            {
                access.append(name)
            }
        }
        var formats: [String] = []
        for raw in 0...SND_PCM_FORMAT_LAST.rawValue {
            let value = snd_pcm_format_t(rawValue: raw)
            if snd_pcm_hw_params_test_format(handle, params, value) == 0,
                let name = ALSAText.string(snd_pcm_format_name(value))
            {
                formats.append(name)
            }
        }
        let channels = closedRange(params, snd_pcm_hw_params_get_channels_min, snd_pcm_hw_params_get_channels_max)
        var channelCounts: [Int]?
        if channels.max >= channels.min, channels.max - channels.min < 64 {
            channelCounts = (channels.min...channels.max).filter {
                snd_pcm_hw_params_test_channels(handle, params, $0) == 0
            }.map { Int($0) }
        }
        let standardRates = ALSACapabilities.testedRates.filter {
            snd_pcm_hw_params_test_rate(handle, params, UInt32($0), 0) == 0
        }
        let rates = range(params, snd_pcm_hw_params_get_rate_min, snd_pcm_hw_params_get_rate_max)
        // Hardware with a rate list accepts none of the odd rates between its entries; a rate
        // converter or a loopback accepts them all.
        let low = UInt64(rates.min) + 1
        let high = UInt64(rates.max) - 1
        let oddRates = low < high ? [low, Swift.min((low + high) / 2 | 1, high), high] : []
        let continuousRates =
            !oddRates.isEmpty
            && oddRates.allSatisfy {
                snd_pcm_hw_params_test_rate(handle, params, UInt32($0), 0) == 0
            }
        return ALSACapabilities(
            pcmType: ALSAText.string(snd_pcm_type_name(snd_pcm_type(handle))) ?? "unknown",
            access: access, formats: formats, channels: channels, channelCounts: channelCounts,
            rates: rates, standardRates: standardRates, continuousRates: continuousRates,
            periodFrames: range(params, snd_pcm_hw_params_get_period_size_min, snd_pcm_hw_params_get_period_size_max),
            periodMicroseconds: range(
                params, snd_pcm_hw_params_get_period_time_min, snd_pcm_hw_params_get_period_time_max),
            bufferFrames: closedRange(
                params, snd_pcm_hw_params_get_buffer_size_min, snd_pcm_hw_params_get_buffer_size_max),
            bufferMicroseconds: range(
                params, snd_pcm_hw_params_get_buffer_time_min, snd_pcm_hw_params_get_buffer_time_max),
            periods: range(params, snd_pcm_hw_params_get_periods_min, snd_pcm_hw_params_get_periods_max))
    }

    /// A range from a min/max getter pair that reports open ends through `dir`.
    fileprivate func range<Value: BinaryInteger>(
        _ params: OpaquePointer,
        _ getMin: (OpaquePointer?, UnsafeMutablePointer<Value>?, UnsafeMutablePointer<Int32>?) -> Int32,
        _ getMax: (OpaquePointer?, UnsafeMutablePointer<Value>?, UnsafeMutablePointer<Int32>?) -> Int32
    ) -> ALSARange {
        var low: Value = 0
        var high: Value = 0
        var lowDirection: Int32 = 0
        var highDirection: Int32 = 0
        _ = getMin(params, &low, &lowDirection)
        _ = getMax(params, &high, &highDirection)
        return ALSARange(
            min: UInt32(clamping: low), max: UInt32(clamping: high),
            minOpen: lowDirection > 0, maxOpen: highDirection < 0)
    }

    /// A range from getters without `dir` (channels, buffer size), whose ends are never open.
    fileprivate func closedRange<Value: BinaryInteger>(
        _ params: OpaquePointer,
        _ getMin: (OpaquePointer?, UnsafeMutablePointer<Value>?) -> Int32,
        _ getMax: (OpaquePointer?, UnsafeMutablePointer<Value>?) -> Int32
    ) -> ALSARange {
        var low: Value = 0
        var high: Value = 0
        _ = getMin(params, &low)
        _ = getMax(params, &high)
        return ALSARange(min: UInt32(clamping: low), max: UInt32(clamping: high))
    }

    /// A `snd_pcm_hw_params_t`, allocated by libasound and freed in deinit.
    fileprivate final class HardwareParameters {
        let pointer: OpaquePointer

        init() throws(ALSAControl.Failure) {
            var allocated: OpaquePointer?
            let result = snd_pcm_hw_params_malloc(&allocated)
            guard result >= 0, let allocated else { throw ALSAControl.Failure(code: result) }
            pointer = allocated
        }

        deinit { snd_pcm_hw_params_free(pointer) }
    }
}
