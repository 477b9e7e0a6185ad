"""CWA's 29 risk calculation conformance cases through the C API."""
import json

import pytest

import encore
from encore.risk import DAY, RiskConfig
from encore_testdata import REPO

CONFORMANCE = json.loads((REPO / "Tests/data/cwa/android-exposure-windows-risk-calculation.json").read_text())
NOW = 1_700_000_000
MIDNIGHT = NOW - NOW % DAY


def age(date):
    return None if date is None else (MIDNIGHT - date) // DAY


def test_there_are_29_cases():
    assert len(CONFORMANCE["testCases"]) == 29


@pytest.mark.parametrize("case", CONFORMANCE["testCases"], ids=lambda c: c["description"][:60])
def test_conformance(case):
    level = {1: "LOW", 2: "HIGH"}
    with RiskConfig(CONFORMANCE["defaultRiskCalculationConfiguration"]) as config:
        r = config.calculate(case["exposureWindows"], NOW)
    assert r.total_risk_level == level[case["expTotalRiskLevel"]]
    assert age(r.most_recent_date_with_low_risk) == case["expAgeOfMostRecentDateWithLowRisk"]
    assert age(r.most_recent_date_with_high_risk) == case["expAgeOfMostRecentDateWithHighRisk"]
    assert r.number_of_days_with_low_risk == case["expNumberOfDaysWithLowRisk"]
    assert r.number_of_days_with_high_risk == case["expNumberOfDaysWithHighRisk"]
    assert r.total_minimum_distinct_encounters_with_low_risk == case["expTotalMinimumDistinctEncountersWithLowRisk"]
    assert r.total_minimum_distinct_encounters_with_high_risk == case["expTotalMinimumDistinctEncountersWithHighRisk"]
    assert r.calculated_at == NOW


def test_a_malformed_configuration_names_the_field():
    config = json.loads(json.dumps(CONFORMANCE["defaultRiskCalculationConfiguration"]))
    del config["trlEncoding"]["reportTypeOffsetConfirmedTest"]
    with pytest.raises(encore.EncoreError) as e:
        RiskConfig(config)
    assert e.value.status_name == "ENCORE_ERR_INVALID_ARGUMENT"
    assert "trlEncoding.reportTypeOffsetConfirmedTest" in e.value.message


def test_windows_pointing_past_their_scan_instances_are_refused():
    with RiskConfig(CONFORMANCE["defaultRiskCalculationConfiguration"]) as config:
        with pytest.raises(encore.EncoreError):
            config.calculate([{"ageInDays": 1, "reportType": 9, "infectiousness": 1, "calibrationConfidence": 0,
                               "scanInstances": []}], NOW)
