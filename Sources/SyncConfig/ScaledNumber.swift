/// Exact decimal arithmetic shared by `ByteSize` and `ConfigDurations`:
/// `"<whole>[.<fraction>]"` times an integer unit, truncated toward zero.
enum ScaledNumber {
    /// Splits a leading decimal number (`"12"`, `"1.5"`) off `text`.
    /// Returns nil when `text` does not start with a digit or the fraction is empty.
    static func split(_ text: Substring) -> (whole: Substring, fraction: Substring, rest: Substring)? {
        let whole = text.prefix(while: \.isASCIIDigit)
        guard !whole.isEmpty else { return nil }
        var rest = text.dropFirst(whole.count)
        var fraction: Substring = ""
        if rest.first == "." {
            rest = rest.dropFirst()
            fraction = rest.prefix(while: \.isASCIIDigit)
            guard !fraction.isEmpty else { return nil }
            rest = rest.dropFirst(fraction.count)
        }
        return (whole, fraction, rest)
    }

    /// `whole.fraction * unit`, truncated; nil on overflow of `Int64`.
    static func value(whole: Substring, fraction: Substring, unit: Int64) -> Int64? {
        guard unit > 0, let w = UInt64(whole) else { return nil }
        let u = UInt64(unit)
        let (wholePart, overflow) = w.multipliedReportingOverflow(by: u)
        guard !overflow else { return nil }
        var fractionPart: UInt64 = 0
        let digits = fraction.prefix(18)  // 10^18 still fits in UInt64
        if !digits.isEmpty, let f = UInt64(digits) {
            var scale: UInt64 = 1
            for _ in 0..<digits.count { scale *= 10 }
            // f < scale, so f * u / scale < u: the quotient always fits.
            fractionPart = scale.dividingFullWidth(f.multipliedFullWidth(by: u)).quotient
        }
        let (sum, sumOverflow) = wholePart.addingReportingOverflow(fractionPart)
        guard !sumOverflow, sum <= UInt64(Int64.max) else { return nil }
        return Int64(sum)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
