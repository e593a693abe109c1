package io.github.verbs4j.examples;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest, or {@code dev} when running from classes. */
public final class Version implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = Main.class.getPackage().getImplementationVersion();
    return new String[] {"verbs4j " + (v != null ? v : "dev") + " (Java " + Runtime.version() + ")"};
  }
}
