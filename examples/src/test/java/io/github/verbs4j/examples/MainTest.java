package io.github.verbs4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** Every program has --help, and a bad argument is refused (exit 2) with a message naming it. */
class MainTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int execute(String... args) {
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "send_lat", "write_lat", "read_lat", "atomic_lat", "send_bw", "write_bw", "read_bw",
      "himeno", "plot", "memory-model", "probe", "srq-fc"})
  void everyCommandHasHelp(String name) {
    assertEquals(0, execute(name, "--help"), err.toString());
    assertTrue(out.toString().startsWith("Usage: verbs4j " + name), out.toString());
  }

  @Test
  void theRootListsThePrograms() {
    assertEquals(0, execute("--help"));
    for (String p : List.of("run", "send_lat", "write_bw", "himeno", "plot")) {
      assertTrue(out.toString().contains("  " + p + " "), out.toString());
    }
    assertEquals(2, execute());
    assertTrue(err.toString().contains("Missing required subcommand"), err.toString());
  }

  static Stream<Arguments> badArguments() {
    return Stream.of(
        Arguments.of(List.of("send_lat", "--size=abc"), "--size"),
        Arguments.of(List.of("send_lat", "--size=0"), "--size=0"),
        Arguments.of(List.of("send_lat", "--iters=3"), "--iters=3"),
        Arguments.of(List.of("write_bw", "--all", "--size=4"), "--size=4"),
        Arguments.of(List.of("send_bw", "--max-size=1000", "-a"), "--max-size=1000"),
        Arguments.of(List.of("read_lat", "--max-size=1024"), "--max-size needs --all"),
        Arguments.of(List.of("write_lat", "--mtu=1500"), "--mtu=1500"),
        Arguments.of(List.of("read_bw", "--tx-depth=0"), "--tx-depth=0"),
        Arguments.of(List.of("atomic_lat", "--size=16"), "--size=16"),
        Arguments.of(List.of("atomic_lat", "-a"), "--all"),
        Arguments.of(List.of("atomic_lat", "--atomic_type=XOR"), "--atomic_type"),
        Arguments.of(List.of("send_lat", "--plot=chart.jpg"), "--plot=chart.jpg"),
        Arguments.of(List.of("send_lat", "--wait-timeout=soon"), "--wait-timeout"),
        Arguments.of(List.of("send_lat", "--bogus"), "--bogus"),
        Arguments.of(List.of("himeno", "--size=huge"), "--size"),
        Arguments.of(List.of("himeno", "--iterations=0"), "--iterations=0"),
        Arguments.of(List.of("himeno", "--grid=3"), "--grid=3"),
        Arguments.of(List.of("himeno", "--rendezvous=post"), "--rendezvous"),
        Arguments.of(List.of("run", "probe"), "--np"),
        Arguments.of(List.of("run", "-n", "0", "probe"), "--np=0"),
        Arguments.of(List.of("run", "-n", "2", "--provider", "mlx5", "probe"), "--provider=mlx5"),
        Arguments.of(List.of("run", "-n", "2", "-Dverbs.provider=mlx5", "probe"), "-Dverbs.provider=mlx5"),
        Arguments.of(List.of("run", "-n", "2", "--provider", "ib", "-Dverbs.provider=tca", "probe"),
            "--provider=ib and -Dverbs.provider=tca"),
        Arguments.of(List.of("run", "-n", "2", "--timeout", "-5s", "probe"), "--timeout"),
        Arguments.of(List.of("run", "-n", "2", "nosuch"), "PROGRAM 'nosuch'"),
        Arguments.of(List.of("run", "-n", "2", "plot"), "PROGRAM 'plot'"),
        Arguments.of(List.of("run", "-n", "2", "memory-model"), "PROGRAM 'memory-model'"),
        Arguments.of(List.of("memory-model", "--gamma=0"), "--gamma=0"),
        Arguments.of(List.of("run", "-n", "2", "send_lat", "--iters=2"), "--iters=2"),
        Arguments.of(List.of("run", "-n", "2", "himeno", "--size", "giant"), "--size"),
        Arguments.of(List.of("plot", "x.csv"), "--output"));
  }

  @ParameterizedTest
  @MethodSource("badArguments")
  void badArgumentsAreRefusedNamingTheArgument(List<String> args, String named) {
    assertEquals(2, execute(args.toArray(String[]::new)), err.toString());
    assertTrue(err.toString().contains(named), "'" + named + "' not in: " + err);
  }

  @Test
  void runPrintsTheProgramsHelpWithoutStartingProcesses() {
    assertEquals(0, execute("run", "-n", "2", "write_bw", "--help"));
    assertTrue(out.toString().startsWith("Usage: verbs4j write_bw"), out.toString());
  }
}
