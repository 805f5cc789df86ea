/// Enumerates V4L2 nodes. (Being written: finds nothing yet.)
enum V4L2Discovery {
    static func nodes() -> [Device] { [] }

    static func device(path: String) throws(CaptureError) -> Device {
        throw .deviceNotFound(device: path, valid: [], hint: nil)
    }
}
