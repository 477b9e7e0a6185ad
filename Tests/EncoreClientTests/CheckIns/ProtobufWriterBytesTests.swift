import EncoreFixtures
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreTestResults
import Testing

/// The bytes the fixtures write for CWA's trace warning packages, byte for
/// byte as the hand-written encoder wrote them before protobuf-c's pack
/// replaced it (hex captured from that encoder); CrowdNotifier's:
/// EncoreCrowdNotifierTests' CrowdNotifierBytesTests.
@Suite struct ProtobufWriterBytesTests {
    static func expectHex(_ name: String, _ bytes: [UInt8], _ expected: String) {
        let hex = Hex.encode(bytes)
        #expect(hex == expected, "\(name)")
    }

    @Test func traceWarningPackages() {
        let report = SubmissionPayload.ProtectedReport(locationIdHash: [1, 2], iv: [3], encryptedCheckInRecord: [4, 5, 6], mac: [7])
        Self.expectHex("report", TraceWarningWriter.reportBytes(report), "0a0201021201031a03040506220107")
        Self.expectHex("package", TraceWarningWriter.package(intervalNumber: 472_224, warnings: [
            .init(locationIdHash: [9, 9], startInterval: 2_833_344, period: 2, transmissionRiskLevel: 4),
            .init(locationIdHash: [8], startInterval: 0xFFFF_FFFF, period: 1, transmissionRiskLevel: 8),
        ], reports: [report, report], rawReports: [[0x0a, 0x50], [0x08], []]), "08a0e91c120244451a0d0a02090910c0f7ac01180220041a0d0a010810ffffffff0f18012008220f0a0201021201031a03040506220107220f0a0201021201031a0304050622010722020a502201082200")
        Self.expectHex("bare", TraceWarningWriter.package(), "12024445")
        // The one change: a package is proto3 as CWA's server writes it, so a
        // field that is 0 or empty is left out (the hand-written encoder wrote
        // 12 00 1a 08 0a 00 10 00 18 00 20 00 here). No test used such values.
        Self.expectHex("zeros", TraceWarningWriter.package(region: "", warnings: [
            .init(locationIdHash: [], startInterval: 0, period: 0, transmissionRiskLevel: 0),
        ]), "1a00")
    }
}
