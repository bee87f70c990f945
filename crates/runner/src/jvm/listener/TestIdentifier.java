package org.junit.platform.launcher;

public final class TestIdentifier {
    public boolean isTest() {
        return false;
    }

    public String getLegacyReportingName() {
        return null;
    }

    public java.util.Optional<org.junit.platform.engine.TestSource> getSource() {
        return java.util.Optional.empty();
    }
}
