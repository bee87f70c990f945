package org.junit.platform.engine;

public interface TestSource extends java.io.Serializable {}
