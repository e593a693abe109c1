package io.github.verbs4j.examples.common;

/**
 * A program whose options have rules beyond what picocli checks (ranges, combinations). The
 * launcher calls {@link #validateOptions()} after parsing a program's arguments, before starting
 * any process, so a bad argument fails once, with a message naming it.
 */
public interface ValidatesOptions {
  /**
   * @throws picocli.CommandLine.ParameterException naming the offending option
   */
  void validateOptions();
}
