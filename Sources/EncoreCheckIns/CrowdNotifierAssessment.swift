import EncoreCrowdNotifier

/// CrowdNotifier matches in the check-ins' risk. A CrowdNotifier trace key
/// carries no transmission risk: SwissCovid and NotifyMe notify on any
/// match, so a matched visit makes its day HIGH (kept beside CWA's
/// normalized time of that day) and so the total.
extension PresenceTracingAssessment {
    public func adding(crowdNotifier exposures: [CrowdNotifierExposure]) -> PresenceTracingAssessment {
        guard !exposures.isEmpty else { return self }
        var a = self
        a.crowdNotifierExposures = exposures.sorted { ($0.day, $0.checkIn, $0.start) > ($1.day, $1.checkIn, $1.start) }
        for day in Set(exposures.map(\.day)) {
            if let i = a.days.firstIndex(where: { $0.date == day }) {
                a.days[i].riskLevel = .high
            } else {
                a.days.append(PresenceTracingDay(date: day, normalizedTime: 0, riskLevel: .high))
            }
        }
        a.days.sort { $0.date > $1.date }
        a.totalRiskLevel = .high
        return a
    }
}
