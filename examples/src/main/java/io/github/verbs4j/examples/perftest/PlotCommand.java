package io.github.verbs4j.examples.perftest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code verbs4j plot}: draws results files written with {@code --csv} into one PNG. */
@Command(name = "plot", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Draw latency and bandwidth against message size (log-log) from --csv results files, one "
        + "series per program, label and clock.")
public final class PlotCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "FILE.csv", description = "Results files written with --csv.")
  List<Path> files;

  @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE.png", description = "The PNG to write.")
  Path output;

  @Option(names = "--program", paramLabel = "NAME", split = ",",
      description = "Only these programs (comma-separated, e.g. send_lat,write_bw).")
  Set<String> programs;

  @Override
  public Integer call() {
    if (!output.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
      throw new ParameterException(spec.commandLine(), "--output=" + output + " must name a .png file");
    }
    List<ResultRow> rows = new ArrayList<>();
    for (Path f : files) {
      if (!Files.isRegularFile(f)) {
        throw new ParameterException(spec.commandLine(), "FILE.csv " + f + " does not exist");
      }
      for (ResultRow r : ResultCsv.read(f)) {
        if (programs == null || programs.contains(r.program())) {
          rows.add(r);
        }
      }
    }
    Charts.render(rows, output);
    spec.commandLine().getOut().println("Chart written to " + output + " (" + rows.size() + " results)");
    return 0;
  }
}
