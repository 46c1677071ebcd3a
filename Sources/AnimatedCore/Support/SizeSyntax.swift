/// "WxH" (or "WXH"): two positive whole numbers, as `--sprite 8x4` (columns × rows) and
/// `--size 80x24` (cells) take them; nil for anything else. The CLI's one parser of the syntax.
package func parseWxH(_ s: String) -> (Int, Int)? {
    let parts = s.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "x" || $0 == "X" })
    guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a > 0, b > 0 else { return nil }
    return (a, b)
}
