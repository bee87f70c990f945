package dev.pith;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * pith's JUnit Platform listener, found by the launcher through META-INF/services. It appends
 * one line per test start and finish to the file named by PITH_JUNIT_EVENTS, flushed at once,
 * so a run killed at its deadline, or a test that calls System.exit, still tells which test was
 * running. Without that variable it does nothing. It must never break a run: every failure to
 * write is swallowed.
 *
 * When pith traces (PITH_JACOCO_DIR names a directory and JaCoCo's agent is in the JVM), it
 * also keeps each test's own coverage: the agent's data is reset when a test starts and written,
 * when it ends, to DIR/<run>-<n>.exec, with "<run>-<n>\tclass\tname" appended to DIR/tests.txt.
 */
public final class PithListener implements TestExecutionListener {
    private final FileOutputStream out;
    private final File jacocoDir;
    private final Object agent;
    private final Method executionData;
    private final String run = Long.toHexString(System.nanoTime());
    private int traced;

    public PithListener() {
        File dir = null;
        Object a = null;
        Method data = null;
        String jacoco = System.getenv("PITH_JACOCO_DIR");
        if (jacoco != null && !jacoco.isEmpty()) {
            try {
                Class<?> rt = Class.forName("org.jacoco.agent.rt.RT");
                a = rt.getMethod("getAgent").invoke(null);
                data = Class.forName("org.jacoco.agent.rt.IAgent").getMethod("getExecutionData", boolean.class);
                dir = new File(jacoco);
            } catch (Exception | LinkageError e) {
                a = null;
                data = null;
                dir = null;
            }
        }
        jacocoDir = dir;
        agent = a;
        executionData = data;
        FileOutputStream o = null;
        String path = System.getenv("PITH_JUNIT_EVENTS");
        if (path != null && !path.isEmpty()) {
            try {
                o = new FileOutputStream(path, true);
            } catch (IOException | RuntimeException e) {
                o = null;
            }
        }
        out = o;
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        if (id.isTest()) {
            coverage();
        }
        write(id, "S", "");
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        String tail = "\t" + result.getStatus();
        Throwable t = result.getThrowable().orElse(null);
        if (t != null) {
            tail += "\t" + clean(String.valueOf(t));
        }
        write(id, "F", tail);
        if (id.isTest()) {
            keepCoverage(id);
        }
    }

    /** The agent's data since the last call, reset; null without an agent. */
    private byte[] coverage() {
        if (agent == null) {
            return null;
        }
        try {
            return (byte[]) executionData.invoke(agent, true);
        } catch (Exception | LinkageError e) {
            return null;
        }
    }

    private synchronized void keepCoverage(TestIdentifier id) {
        byte[] data = coverage();
        if (data == null) {
            return;
        }
        try {
            String name = run + "-" + (traced++);
            try (FileOutputStream exec = new FileOutputStream(new File(jacocoDir, name + ".exec"))) {
                exec.write(data);
            }
            TestSource source = id.getSource().orElse(null);
            String cls = source instanceof MethodSource ? ((MethodSource) source).getClassName() : "";
            String line = name + "\t" + clean(cls) + "\t" + clean(id.getLegacyReportingName()) + "\n";
            try (FileOutputStream index = new FileOutputStream(new File(jacocoDir, "tests.txt"), true)) {
                index.write(line.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException | RuntimeException e) {
            // Tracing must never break the run.
        }
    }

    private void write(TestIdentifier id, String what, String tail) {
        if (out == null) {
            return;
        }
        try {
            if (!id.isTest()) {
                return;
            }
            TestSource source = id.getSource().orElse(null);
            String cls = source instanceof MethodSource ? ((MethodSource) source).getClassName() : "";
            String line = what + "\t" + clean(cls) + "\t" + clean(id.getLegacyReportingName()) + tail + "\n";
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            synchronized (this) {
                out.write(bytes);
                out.flush();
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            // Reporting must never break the run.
        }
    }

    private static String clean(String s) {
        if (s == null) {
            return "";
        }
        String one = s.replace('\t', ' ').replace('\r', ' ');
        int nl = one.indexOf('\n');
        if (nl >= 0) {
            one = one.substring(0, nl);
        }
        return one.length() > 500 ? one.substring(0, 500) : one;
    }
}
