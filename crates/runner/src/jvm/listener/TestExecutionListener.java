// Compile-time stand-ins for the JUnit Platform types PithListener uses, so it compiles without
// any JUnit jar. Only PithListener's class file is kept: at run time the real types are there.
package org.junit.platform.launcher;

public interface TestExecutionListener {
    default void executionStarted(TestIdentifier id) {}

    default void executionFinished(TestIdentifier id, org.junit.platform.engine.TestExecutionResult r) {}
}
