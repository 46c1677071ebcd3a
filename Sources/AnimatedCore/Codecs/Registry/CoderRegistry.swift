/// The coders AnimatedCore tries, in priority order (SDWebImage's `SDImageCodersManager`): the
/// first whose `canDecode(head:)` accepts an input's first bytes opens it. The file name is
/// never looked at.
///
/// `shared` starts with the built-in coders; a library user adds its own (first, so that it
/// wins over a built-in that would also accept the bytes, or last) or removes one. A
/// `DecodeOptions` names the registry it opens with (`shared` by default), so a caller can also
/// keep a registry of its own.
public final class CoderRegistry: Sendable {
    /// How many bytes `canDecode(head:)` is given (fewer when the input is shorter): enough for
    /// an ISO-BMFF `ftyp` box with a few compatible brands.
    package static let headLength = 64

    /// The registry `DecodeOptions()` uses: the built-in coders, in the order `builtIns` lists.
    public static let shared = CoderRegistry()

    /// The coders AnimatedCore brings: GIF, PNG/APNG, WebP, JPEG, AVIF.
    public static var builtIns: [any ImageCoder] { [GIFCoder(), PNGCoder(), WebPCoder(), JPEGCoder(), AVIFCoder()] }

    private let monitor: Monitor<[any ImageCoder]>

    /// A registry holding `coders`, first = highest priority (by default the built-ins).
    public init(_ coders: [any ImageCoder] = CoderRegistry.builtIns) {
        monitor = Monitor(coders)
    }

    /// The coders, highest priority first.
    public var coders: [any ImageCoder] { monitor.withLock { $0 } }

    /// The names of the coders, highest priority first ("GIF, PNG, WebP" in messages).
    public var names: [String] { coders.map(\.name) }

    /// Adds `coder` before every other (`first`, the default: it is asked first) or after.
    public func add(_ coder: any ImageCoder, first: Bool = true) {
        monitor.withLock { first ? $0.insert(coder, at: 0) : $0.append(coder) }
    }

    /// Removes every coder named `name`; true if there was one.
    @discardableResult
    public func remove(named name: String) -> Bool {
        monitor.withLock { list -> Bool in
            let before = list.count
            list.removeAll { $0.name == name }
            return list.count != before
        }
    }

    /// The first coder that recognises `head`, or nil.
    public func coder(for head: [UInt8]) -> (any ImageCoder)? {
        coders.first { $0.canDecode(head: head) }
    }

    /// "GIF, PNG or WebP": what an unrecognised input is not.
    package var formatList: String {
        let n = names
        guard n.count > 1 else { return n.first ?? "no" }
        return n.dropLast().joined(separator: ", ") + " or " + n.last!
    }
}
