import EncoreKeyFiles
import EncoreTestSupport

extension TestData {
    /// A trust list with the published keys of the signed samples.
    package static func sampleTrust() throws -> TrustList {
        let trust = TrustList()
        try trust.add(id: "310", version: "v1", material: bytes("exports/google-sample/public_310-v1.pem"))
        try trust.add(id: "some_id", version: "1", material: bytes("exports/en-server/public.pem"))
        return trust
    }
}
