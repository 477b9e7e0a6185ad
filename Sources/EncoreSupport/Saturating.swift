/// Sums and differences that stop at the type's bounds instead of trapping:
/// for values a host or a file hands in (clocks, day numbers, counts),
/// where "very far in the past or future" is the right answer to an
/// overflow and a wrapped value is not.
extension FixedWidthInteger {
    public func saturatingAdding(_ other: Self) -> Self {
        let (value, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : value
    }

    public func saturatingSubtracting(_ other: Self) -> Self {
        let (value, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : value
    }
}
