// encore.h section: store, part 5
import CEncoreTypes
import EncoreCheck
import EncoreClient
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreSync

/// Writes the newest risk result (latest time; the last added among equal
/// times) to *result and its document into library-owned memory in
/// *document (release it with encore_bytes_free()). Either may be NULL when
/// not wanted; result->struct_size is set by the caller. ENCORE_ERR_NOT_FOUND when the store holds no result.
@c public func encore_risk_result_get_last(_ client: encore_client_ptr?, _ result: UnsafeMutablePointer<encore_risk_result>?, _ document: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        guard let r = try s.lastRiskResult() else { throw EncoreError(.notFound, "the store holds no risk result") }
        try handOut(r, result, document)
    }
}

/// Writes the risk result `id` to *result and its document to *document,
/// as encore_risk_result_get_last() does. ENCORE_ERR_NOT_FOUND when
/// there is no such result (or it was purged).
@c public func encore_risk_result_get(_ client: encore_client_ptr?, _ id: Int64, _ result: UnsafeMutablePointer<encore_risk_result>?, _ document: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        guard let r = try s.riskResult(id: id) else { throw EncoreError(.notFound, "no risk result \(id) in the store") }
        try handOut(r, result, document)
    }
}

/// Writes the number of risk results with from <= time < to to *count.
@c public func encore_risk_result_count(_ client: encore_client_ptr?, _ from: Int64, _ to: Int64, _ count: UnsafeMutablePointer<UInt64>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try output(count, "count") { UInt64(try s.countRiskResults(from: from, to: to)) }
    }
}

/// Copies risk results with from <= time < to, oldest first (by time, then
/// id), from index `first` on, without their documents (read one with
/// encore_risk_result_get()), as every list is copied (see "Lists").
@c public func encore_risk_result_copy(_ client: encore_client_ptr?, _ from: Int64, _ to: Int64, _ first: UInt64, _ out: UnsafeMutablePointer<encore_risk_result>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try copyOut(first: first, out, element_size, capacity, copied, count: { try s.countRiskResults(from: from, to: to) },
                    forEach: { try s.forEachRiskResult(from: from, to: to, offset: $0, limit: $1, $2) }, encore_risk_result.init)
    }
}

/// Writes a result and its document to the caller's (optional) out-params,
/// the document allocated first so that nothing is written when that fails.
private func handOut(_ r: RiskResult, _ result: UnsafeMutablePointer<encore_risk_result>?, _ document: UnsafeMutablePointer<encore_bytes>?) throws {
    if let result { try checkOutput(result, "result") }
    let doc = try document.map { _ in try LibraryBytes.make(r.document) }
    if let result { try writeOutput(encore_risk_result(r), to: result, "result") }
    if let document, let doc { document.pointee = doc }
}

extension encore_risk_result {
    init(_ r: RiskResult) {
        self.init(struct_size: structSize(encore_risk_result.self), level: r.level, id: r.id, time: r.time,
                  document_length: UInt64(r.document.utf8.count))
    }
}
