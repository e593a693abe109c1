package io.github.verbs4j.examples.launcher;

import io.github.verbs4j.fabric.auth.JobSecret;

import io.github.verbs4j.examples.common.DurationConverter;
import io.github.verbs4j.examples.common.ValidatesOptions;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code verbs4j run -n N [options] <program> [args]}: a job of N JVMs on the Netty fabric with an
 * embedded coordinator. Options after the program name belong to the program; they are checked
 * here, before any process starts.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Start a job: an embedded coordinator and N JVM processes running <program>, over the netty "
        + "fabric. Output lines are prefixed by [rank].",
        "The run fails (non-zero exit) when any rank fails; on a failing rank, Ctrl-C or --timeout every child is "
            + "stopped.",
        "Example: verbs4j run -n 2 send_lat -a --max-size 65536"})
public final class RunCommand implements Callable<Integer> {
  /** Programs {@code run} will not start as ranks. */
  static final Set<String> NOT_PROGRAMS = Set.of("run", "help", "plot", "memory-model");
  /** The most processes one launcher starts. */
  static final int MAX_RANKS = 256;

  @Spec
  CommandSpec spec;

  @Option(names = {"-n", "--np"}, required = true, paramLabel = "N", description = "Number of processes (1..256).")
  int ranks;

  @Option(names = "--provider", paramLabel = "ib|tca",
      description = "Provider for every rank (default: -Dverbs.provider, else verbs.provider from the "
          + "configuration, else ib).")
  String provider;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
      description = "Stop the job after this long, e.g. 90s, 10m (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(names = "--coordinator", paramLabel = "HOST:PORT",
      description = "Use this running coordinator instead of starting one.")
  String coordinator;

  @Option(names = "-D", paramLabel = "KEY=VALUE", mapFallbackValue = "",
      description = "A system property for every rank, e.g. -Dverbs.time=modelled.")
  Map<String, String> properties = new LinkedHashMap<>();

  @Option(names = "--jvm-opt", paramLabel = "OPTION", description = "An extra JVM option for every rank, e.g. "
      + "--jvm-opt=-Xmx1g.")
  List<String> jvmOptions = new ArrayList<>();

  @Parameters(index = "0", paramLabel = "PROGRAM", description = "The program every rank runs, e.g. send_lat, "
      + "write_bw, himeno.")
  String program;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "The program's arguments.")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() {
    if (ranks < 1 || ranks > MAX_RANKS) {
      throw bad("--np=" + ranks + " must be between 1 and " + MAX_RANKS);
    }
    String fromD = properties.get("verbs.provider");
    if (provider != null && fromD != null && !provider.equals(fromD)) {
      throw bad("--provider=" + provider + " and -Dverbs.provider=" + fromD + " name different providers");
    }
    String prov = provider != null ? provider : fromD != null ? fromD : VerbsConfig.load().get(VerbsConfig.PROVIDER);
    if (!prov.equals("ib") && !prov.equals("tca")) {
      throw bad((provider == null && fromD != null ? "-Dverbs.provider=" : "--provider=") + prov
          + " must be ib or tca");
    }
    CommandLine root = spec.root().commandLine();
    CommandLine target = root.getSubcommands().get(program);
    if (target == null || NOT_PROGRAMS.contains(program)) {
      throw bad("PROGRAM '" + program + "' is not a verbs4j program (try: " + programs(root) + ")");
    }
    CommandLine check = new CommandLine(target.getCommandSpec().userObject().getClass())
        .setCaseInsensitiveEnumValuesAllowed(true);
    CommandLine.ParseResult parsed;
    try {
      parsed = check.parseArgs(args.toArray(String[]::new));
    } catch (ParameterException e) {
      throw new ParameterException(target, e.getMessage(), e);
    }
    if (parsed.isUsageHelpRequested()) {
      target.usage(target.getOut());
      return 0;
    }
    if (parsed.isVersionHelpRequested()) {
      target.printVersionHelp(target.getOut());
      return 0;
    }
    if (check.getCommand() instanceof ValidatesOptions v) {
      try {
        v.validateOptions();
      } catch (ParameterException e) {
        throw new ParameterException(target, e.getMessage(), e);
      }
    }
    Map<String, String> props = new LinkedHashMap<>(inheritedProperties());
    props.putAll(properties);
    props.put("verbs.provider", prov);
    props.put("verbs.fabric", "netty");
    Launcher.Job job;
    try (CoordinatorHandle coord = coordinator != null || !needsCoordinator(program)
        ? CoordinatorHandle.external(coordinator) : EmbeddedCoordinator.start(ranks)) {
      if (coord.address() != null) {
        props.put("verbs.coordinator", coord.address());
      }
      job = new Launcher.Job(ranks, command(), props, jvmOptions, timeout, System.getProperty("java.class.path"),
          Path.of("").toAbsolutePath());
      Launcher launcher = new Launcher(job, System.out, System.err);
      coord.secret().ifPresent(k -> launcher.environment(JobSecret.ENV, k.toHex()));
      // On SIGTERM the JVM halts after its hooks, before this method's finally: the hook also
      // closes the embedded coordinator, which deletes its secret file (close is idempotent).
      Thread hook = new Thread(() -> {
        launcher.stop("interrupted");
        coord.close();
      }, "verbs4j-run-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        return launcher.run();
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running or has run; it stops the children itself
        }
      }
    }
  }

  List<String> command() {
    List<String> cmd = new ArrayList<>();
    cmd.add(program);
    cmd.addAll(args);
    return cmd;
  }

  /** The probe needs no device and so no coordinator. */
  static boolean needsCoordinator(String program) {
    return !"probe".equals(program);
  }

  /** {@code verbs.*} system properties of this JVM that children should see too. */
  static Map<String, String> inheritedProperties() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("verbs.") && !Set.of("verbs.rank", "verbs.size", "verbs.coordinator").contains(name)) {
        m.put(name, System.getProperty(name));
      }
    }
    return m;
  }

  private static String programs(CommandLine root) {
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, CommandLine> e : root.getSubcommands().entrySet()) {
      if (!NOT_PROGRAMS.contains(e.getKey()) && !e.getValue().getCommandSpec().usageMessage().hidden()) {
        names.add(e.getKey());
      }
    }
    return String.join(", ", names);
  }

  private ParameterException bad(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
