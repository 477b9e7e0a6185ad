import EncoreSupport
import Testing

struct SaturatingTests {
    @Test func sumsAndDifferencesStopAtTheBounds() {
        #expect(Int64.max.saturatingAdding(1) == .max)
        #expect(Int64.min.saturatingAdding(-1) == .min)
        #expect(Int64.min.saturatingSubtracting(1) == .min)
        #expect(Int64.max.saturatingSubtracting(-1) == .max)
        #expect(Int64(0).saturatingSubtracting(.min) == .max)
        #expect(Int64(-1).saturatingSubtracting(.min) == .max)
        #expect(Int64(-2).saturatingSubtracting(.max) == .min)
        #expect(Int64(40).saturatingSubtracting(2) == 38)
        #expect(Int64(-40).saturatingAdding(2) == -38)
        #expect(UInt8(250).saturatingAdding(10) == 255)
        #expect(UInt8(3).saturatingSubtracting(10) == 0)
        #expect(Int32.max.saturatingAdding(.min) == -1)
    }
}
