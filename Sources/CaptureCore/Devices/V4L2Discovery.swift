/// Enumerates V4L2 nodes. (Being written: returns nothing yet.)
enum V4L2Discovery {
    static func nodes() -> [Device] { [] }
}
