import Foundation
import AnimatedCore
import AnimatedTerminal

/// A minimal kitty graphics terminal for checking our output: it splits the byte stream into
/// APC `G` commands (unwrapping tmux passthrough), enforces the chunking rules (payload chunks
/// ≤ 4096 bytes; later chunks carry only `m` and `q`), decodes base64 and zlib as kitty does,
/// and keeps images with their frames, the frame shown and the placements. Text bytes outside
/// commands are collected (there should be none).
package struct MiniKitty {
    /// Files and shared-memory objects read (and deleted) so far.
    package var objectsRead = 0
    package struct Image {
        package var width: Int, height: Int
        package var frames: [[UInt8]]            // RGBA per frame, index 0 = frame 1 (root)
        package var current = 1
        package var placements: Set<Int> = []
    }
    package var images: [UInt32: Image] = [:]
    package var stills: [[UInt8]] = []            // images transmitted without an id
    package var commands: [[String: String]] = [] // every command's keys (first chunk of each)
    package var chunkSizes: [Int] = []
    /// The pixel format (`f=`: 24 RGB, 32 RGBA) of every transmission decoded, in order.
    package var formats: [Int] = []
    package var text: [UInt8] = []
    package var errors: [String] = []
    private var pending: (keys: [String: String], data: [UInt8])?

    package init() {}

    package mutating func feed(_ bytes: [UInt8]) {
        var b = bytes
        b = unwrapTmux(b)
        var i = 0
        while i < b.count {
            if b[i] == 0x1B, i + 2 < b.count, b[i + 1] == 0x5F, b[i + 2] == 0x47 {
                var j = i + 3
                while j + 1 < b.count && !(b[j] == 0x1B && b[j + 1] == 0x5C) { j += 1 }
                guard j + 1 < b.count else { errors.append("unterminated APC"); return }
                command(Array(b[(i + 3)..<j]))
                i = j + 2
            } else if b[i] == 0x1B, i + 1 < b.count, b[i + 1] == 0x37 || b[i + 1] == 0x38 {
                i += 2                                   // DECSC / DECRC
            } else if b[i] == 0x1B, i + 1 < b.count, b[i + 1] == 0x5B {
                var j = i + 2                            // CSI … final
                while j < b.count && !(0x40...0x7E).contains(b[j]) { j += 1 }
                i = j + 1
            } else {
                text.append(b[i]); i += 1
            }
        }
    }

    /// `ESC P tmux; <command with ESC doubled> ESC \` → the command.
    package func unwrapTmux(_ b: [UInt8]) -> [UInt8] {
        let prefix: [UInt8] = [0x1B, 0x50] + Array("tmux;".utf8)
        var out: [UInt8] = [], i = 0
        while i < b.count {
            if b.count - i >= prefix.count && Array(b[i..<(i + prefix.count)]) == prefix {
                var j = i + prefix.count
                while j < b.count {
                    if b[j] == 0x1B && j + 1 < b.count && b[j + 1] == 0x1B { out.append(0x1B); j += 2; continue }
                    if b[j] == 0x1B && j + 1 < b.count && b[j + 1] == 0x5C { j += 2; break }
                    out.append(b[j]); j += 1
                }
                i = j
            } else { out.append(b[i]); i += 1 }
        }
        return out
    }

    package mutating func command(_ body: [UInt8]) {
        let semi = body.firstIndex(of: 0x3B) ?? body.count
        var keys: [String: String] = [:]
        for kv in String(decoding: body[..<semi], as: UTF8.self).split(separator: ",") {
            let p = kv.split(separator: "=", maxSplits: 1)
            if p.count == 2 { keys[String(p[0])] = String(p[1]) } else { errors.append("bad key \(kv)") }
        }
        let payload = semi < body.count ? Array(body[(semi + 1)...]) : []
        if !payload.isEmpty { chunkSizes.append(payload.count) }
        if payload.count > 4096 { errors.append("chunk of \(payload.count) bytes") }
        if var p = pending {
            // Only m and q; a frame upload also repeats a=f (for kitty 0.26).
            let allowed: Set<String> = p.keys["a"] == "f" ? ["m", "q", "a"] : ["m", "q"]
            if !Set(keys.keys).isSubset(of: allowed) || (keys["a"] != nil && keys["a"] != "f") {
                errors.append("continuation chunk with keys \(keys)")
            }
            p.data += payload
            if keys["m"] == "1" { pending = p } else { pending = nil; execute(p.keys, p.data) }
            return
        }
        commands.append(keys)
        if keys["m"] == "1" { pending = (keys, payload); return }
        execute(keys, payload)
    }

    package mutating func pixels(_ keys: [String: String], _ data: [UInt8]) -> [UInt8]? {
        guard keys["f"] == "32" || keys["f"] == "24", let w = Int(keys["s"] ?? ""), let h = Int(keys["v"] ?? ""),
              let text = Base64.decode(data), let bytes = read(keys["t"] ?? "d", text) else {
            errors.append("undecodable payload \(keys)"); return nil
        }
        // o=z: a zlib stream; else raw data (allowed only for t=t/t=s: inline data is compressed).
        // f=24: RGB, which kitty shows as opaque RGBA.
        let channels = keys["f"] == "24" ? 3 : 4
        let data = keys["o"] == "z" ? Zlib.decompress(bytes, limit: w * h * channels)
            : (keys["t"] ?? "d") != "d" ? bytes : nil
        guard let data, data.count == w * h * channels else { errors.append("undecodable payload \(keys)"); return nil }
        if channels == 4 { formats.append(32); return data }
        formats.append(24)
        return KittyFramePreparer.rgba(fromRGB: data)
    }

    /// The data of a transmission, as kitty reads it: inline, or from the temporary file /
    /// shared-memory object the payload names, which kitty then deletes.
    package mutating func read(_ medium: String, _ payload: [UInt8]) -> [UInt8]? {
        guard medium != "d" else { return payload }
        let name = String(decoding: payload, as: UTF8.self)
        let path = medium == "s" ? "/dev/shm" + name : name
        if medium == "t" && !name.contains("tty-graphics-protocol") { errors.append("temporary file kitty keeps: \(name)") }
        guard medium == "t" || medium == "s", let data = FileManager.default.contents(atPath: path) else {
            errors.append("unreadable \(medium) \(name)"); return nil
        }
        unlink(path)
        objectsRead += 1
        return Array(data)
    }

    package mutating func execute(_ keys: [String: String], _ data: [UInt8]) {
        // Uploads to the animation ask for errors only; everything else is silent.
        let upload = (keys["a"] == "T" && keys["i"] != nil) || keys["a"] == "f"
        if keys["q"] != (upload ? "1" : "2") { errors.append("command with the wrong q: \(keys)") }
        let id = UInt32(keys["i"] ?? "0") ?? 0
        switch keys["a"] ?? "t" {
        case "T":
            guard let px = pixels(keys, data) else { return }
            if id == 0 { stills.append(px); return }
            var img = Image(width: Int(keys["s"]!)!, height: Int(keys["v"]!)!, frames: [px])
            img.placements.insert(Int(keys["p"] ?? "0") ?? 0)
            images[id] = img
        case "f":
            guard var img = images[id] else { errors.append("a=f on missing image"); return }
            guard let px = pixels(keys, data) else { return }
            if let r = Int(keys["r"] ?? "") {
                guard r >= 1 && r <= img.frames.count, keys["X"] == "1" else { errors.append("bad edit \(keys)"); return }
                img.frames[r - 1] = px
            } else {
                img.frames.append(px)
            }
            images[id] = img
        case "a":
            guard let c = Int(keys["c"] ?? ""), images[id] != nil, c >= 1, c <= images[id]!.frames.count else {
                errors.append("bad frame switch \(keys)"); return
            }
            images[id]!.current = c
        case "p":
            images[id]?.placements.insert(Int(keys["p"] ?? "0") ?? 0)
        case "d":
            if keys["d"] == "I" { images[id] = nil } else { errors.append("unexpected delete \(keys)") }
        default:
            errors.append("unexpected action \(keys)")
        }
    }

    /// RGBA the image shows now.
    package func shown(_ id: UInt32) -> [UInt8]? {
        images[id].map { $0.frames[$0.current - 1] }
    }
}

/// A solid-colour canvas.
package func solidCanvas(_ w: Int, _ h: Int, _ rgba: (UInt8, UInt8, UInt8, UInt8)) -> Canvas {
    let c = Canvas(width: w, height: h)
    for i in 0..<(w * h) {
        c.pixels[i * 4] = rgba.0; c.pixels[i * 4 + 1] = rgba.1; c.pixels[i * 4 + 2] = rgba.2; c.pixels[i * 4 + 3] = rgba.3
    }
    return c
}
