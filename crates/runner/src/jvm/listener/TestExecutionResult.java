package org.junit.platform.engine;

public class TestExecutionResult {
    public enum Status { SUCCESSFUL, ABORTED, FAILED }

    public Status getStatus() {
        return null;
    }

    public java.util.Optional<Throwable> getThrowable() {
        return java.util.Optional.empty();
    }
}
