package dev.pith;

import java.io.FileOutputStream;
import java.io.IOException;
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
 */
public final class PithListener implements TestExecutionListener {
    private final FileOutputStream out;

    public PithListener() {
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
