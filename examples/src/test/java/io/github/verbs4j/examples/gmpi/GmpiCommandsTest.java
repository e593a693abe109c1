package io.github.verbs4j.examples.gmpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The GMPI programs: registered with help, bad arguments refused by name, gmpi-args' table. */
class GmpiCommandsTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int execute(String... args) {
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gmpi-args", "gmpi-pingpong", "gmpi-himeno"})
  void everyGmpiProgramHasHelp(String name) {
    assertEquals(0, execute(name, "--help"), err.toString());
    assertTrue(out.toString().startsWith("Usage: verbs4j " + name), out.toString());
  }

  static Stream<Arguments> badArguments() {
    return Stream.of(
        Arguments.of(List.of("gmpi-args", "--iters=0"), "--iters=0"),
        Arguments.of(List.of("gmpi-args", "--profile=volta"), "--profile=volta"),
        Arguments.of(List.of("gmpi-pingpong", "--iters=1"), "--iters=1"),
        Arguments.of(List.of("gmpi-pingpong", "--sizes=4,0"), "--sizes: 0"),
        Arguments.of(List.of("gmpi-pingpong", "--profile=k80"), "--profile=k80"),
        Arguments.of(List.of("gmpi-himeno", "-n", "1"), "--iterations=1"),
        Arguments.of(List.of("gmpi-himeno", "--size=huge"), "--size"),
        Arguments.of(List.of("gmpi-args", "--plot=chart.jpg"), "--plot=chart.jpg"),
        Arguments.of(List.of("gmpi-pingpong", "--plot=chart.svg"), "--plot=chart.svg"));
  }

  @ParameterizedTest
  @MethodSource("badArguments")
  void badArgumentsAreRefusedNamingTheArgument(List<String> args, String named) {
    assertEquals(2, execute(args.toArray(String[]::new)), err.toString());
    assertTrue(err.toString().contains(named), "'" + named + "' not in: " + err);
  }

  @TempDir
  Path dir;

  @Test
  void gmpiArgsPrintsModelledTimesBesideTheReferencesAndDrawsThem() throws Exception {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    GmpiArgsCommand cmd = new GmpiArgsCommand();
    Path png = dir.resolve("args.png");
    new CommandLine(cmd).parseArgs("--iters", "3", "--plot", png.toString());
    cmd.output(new PrintStream(report, true, StandardCharsets.UTF_8));
    try (Context ctx = Verbs.open(VerbsConfig.of(Map.of("verbs.provider", "tca", "verbs.fabric", "local",
        "verbs.fabric.name", "gmpi-args-" + ProcessHandle.current().pid(), "verbs.rank", "0", "verbs.size", "1")))) {
      cmd.run(ctx);
    }
    String text = report.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("GMPI request vs argument count, profile paper (kernel launch+stream sync 10.90 us)\n"),
        text);
    assertTrue(text.contains("\n    7             4.50            10.00           4.50    1.000 "), text);
    assertTrue(text.contains("\n   23            10.99            16.49          11.00    0.999 "), text);
    assertTrue(text.contains("GMPI request vs argument count, profile h200 (kernel launch+stream sync 8.95 us)\n"), text);
    assertTrue(text.contains("\n   31             1.15             2.30           2.30    1.000 "), text);
    byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
    assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head, "PNG signature");
    assertTrue(Files.size(png) > 5_000, "a drawn chart");
  }
}
