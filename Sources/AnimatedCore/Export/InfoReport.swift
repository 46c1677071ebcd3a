/// The `animplay info` report, as text or JSON (the JSON keys are a contract used by checks).
package enum InfoReport {
    /// Result of `info --decode`.
    package struct DecodeStats: Sendable {
        package var problems: [Int: String]
        package var seconds: Double
        package var megapixelsPerSecond: Double
        package var peakRSSBytes: Int
        package init(problems: [Int: String], seconds: Double, megapixelsPerSecond: Double, peakRSSBytes: Int) {
            self.problems = problems; self.seconds = seconds
            self.megapixelsPerSecond = megapixelsPerSecond; self.peakRSSBytes = peakRSSBytes
        }
    }

    package static func json(_ info: AnimationInfo, file: String, decode: DecodeStats? = nil) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.value("file", file)
        w.value("format", info.format.rawValue)
        w.value("width", info.width)
        w.value("height", info.height)
        w.value("frameCount", info.frameCount)
        w.value("plays", info.plays)
        w.value("durationMs", info.durationMs)
        if let full = info.scaledFrom {
            w.beginObject("scaledFrom")
            w.value("width", full.width); w.value("height", full.height)
            w.endObject()
        }
        if let o = info.orientation { w.value("orientation", o.rawValue) }
        w.beginArray("frames")
        for (i, f) in info.frames.enumerated() {
            w.beginObject()
            w.value("index", i)
            w.value("x", f.rect.x); w.value("y", f.rect.y)
            w.value("width", f.rect.width); w.value("height", f.rect.height)
            w.value("delayMs", f.delayMs)
            w.value("displayMs", info.displayMs(at: i))
            w.value("dispose", f.dispose.rawValue)
            w.value("blend", f.blend.rawValue)
            w.value("keyframe", f.keyframe)
            if let src = f.source { sourceJSON(src, into: &w) }
            if let p = decode?.problems[i] { w.value("problem", p) }
            w.endObject()
        }
        w.endArray()
        w.beginArray("warnings")
        for s in info.warnings { w.value(nil, s) }
        w.endArray()
        if let d = decode {
            w.beginObject("decode")
            w.value("seconds", d.seconds)
            w.value("megapixelsPerSecond", d.megapixelsPerSecond)
            w.value("peakRSSBytes", d.peakRSSBytes)
            w.value("framesWithProblems", d.problems.count)
            w.endObject()
        }
        w.endObject()
        return w.text
    }

    package static func text(_ info: AnimationInfo, file: String, decode: DecodeStats? = nil) -> String {
        var s = TerminalText.escaped(file) + "\n"   // a line break in the name must not split it
        s += "  format    \(info.format.rawValue)\n"
        s += "  canvas    \(info.width)x\(info.height)"
        if let full = info.scaledFrom { s += " (scaled down from \(full) to fit the limits)" }
        s += "\n"
        if let o = info.orientation, o != .normal { s += "  exif      orientation \(o.rawValue) (\(o)), applied\n" }
        s += "  frames    \(info.frameCount)\n"
        s += "  plays     \(info.plays == 0 ? "forever" : String(info.plays))\n"
        s += "  duration  \(JSONWriter.number(info.durationMs)) ms per play"
        if info.durationMs == 0 {
            // Raw delays of a file that gives no time at all: the player's rule (PlaybackSchedule).
            s += " (every delay is 0: play shows one frame per display tick, 1/--max-fps, 16.7 ms at the default 60 fps)"
        }
        s += "\n"
        for w in info.warnings { s += "  warning   \(w)\n" }
        if let d = decode {
            s += "  decoded   \(info.frameCount) frames in \(JSONWriter.number(d.seconds)) s, "
            s += "\(JSONWriter.number(d.megapixelsPerSecond)) Mpx/s, peak RSS \(d.peakRSSBytes >> 20) MiB\n"
            if !d.problems.isEmpty { s += "  problems  \(d.problems.count) frames\n" }
        }
        s += "\n  frame  rect                 delay  display  dispose     blend   key\n"
        for (i, f) in info.frames.enumerated() {
            func pad(_ t: String, _ n: Int) -> String { t.count >= n ? t : t + String(repeating: " ", count: n - t.count) }
            func lpad(_ t: String, _ n: Int) -> String { t.count >= n ? t : String(repeating: " ", count: n - t.count) + t }
            s += "  " + lpad(String(i), 5) + "  " + pad(f.rect.description, 19)
            s += lpad(JSONWriter.number(f.delayMs), 6) + lpad(JSONWriter.number(info.displayMs(at: i)), 9)
            s += "  " + pad(f.dispose.rawValue, 10) + "  " + pad(f.blend.rawValue, 6) + "  " + (f.keyframe ? "yes" : "")
            if let src = f.source { s += sourceText(src) }
            if let p = decode?.problems[i] { s += "  problem: \(p)" }
            s += "\n"
        }
        return s
    }

    /// Sheet frames: `"source": {x, y, width, height, rotated}` (the sheet area read);
    /// sequence frames: `"file"`, and `"fileFrame"` for a frame of an animated file.
    private static func sourceJSON(_ src: FrameSource, into w: inout JSONWriter) {
        if let r = src.sheetRect {
            w.beginObject("source")
            w.value("x", r.x); w.value("y", r.y); w.value("width", r.width); w.value("height", r.height)
            w.value("rotated", src.rotated)
            w.endObject()
        }
        if let file = src.file { w.value("file", file) }
        if let frame = src.fileFrame { w.value("fileFrame", frame) }
    }

    private static func sourceText(_ src: FrameSource) -> String {
        var s = ""
        if let r = src.sheetRect { s += "  from \(r)" + (src.rotated ? " rotated" : "") }
        if let file = src.file { s += "  " + file }
        if let frame = src.fileFrame { s += " frame \(frame)" }
        return s
    }
}
