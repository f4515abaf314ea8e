package dev.gputop.inference.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A set of engine profiles in recognition order. The built-in set is read once from the profile
 * files packed with the agent ({@value #RESOURCE_DIR}, listed in its {@code index.txt}); users
 * add or override profiles with files of their own ({@link #with}). Immutable and thread-safe.
 */
public final class EngineProfiles {

  /** Where the built-in profile files are, on the class path. */
  public static final String RESOURCE_DIR = "dev/gputop/inference/engines/";

  private static final Comparator<EngineProfile> ORDER =
      Comparator.comparingInt(EngineProfile::priority).thenComparing(p -> p.engine().id());

  private final List<EngineProfile> all;

  private EngineProfiles(List<EngineProfile> profiles) {
    List<EngineProfile> sorted = new ArrayList<>(profiles);
    sorted.sort(ORDER);
    this.all = List.copyOf(sorted);
  }

  /** These profiles, one per engine (a later one with the same engine replaces the earlier). */
  public static EngineProfiles of(List<EngineProfile> profiles) {
    Map<Engine, EngineProfile> byEngine = new LinkedHashMap<>();
    for (EngineProfile p : profiles) {
      byEngine.put(p.engine(), p);
    }
    return new EngineProfiles(new ArrayList<>(byEngine.values()));
  }

  /** The profiles packed with the agent. */
  public static EngineProfiles builtIn() {
    return BuiltIn.PROFILES;
  }

  private static final class BuiltIn {
    static final EngineProfiles PROFILES = readBuiltIn();
  }

  /** Profiles in recognition order: a vLLM that also serves TGI-style names is vLLM. */
  public List<EngineProfile> all() {
    return all;
  }

  /** The profile of an engine, or null (always for {@link Engine#UNKNOWN}). */
  public EngineProfile get(Engine engine) {
    for (EngineProfile p : all) {
      if (p.engine() == engine) {
        return p;
      }
    }
    return null;
  }

  /** These profiles with {@code added} added, each replacing the profile of the same engine. */
  public EngineProfiles with(List<EngineProfile> added) {
    List<EngineProfile> list = new ArrayList<>(all);
    list.addAll(added);
    return of(list);
  }

  private static EngineProfiles readBuiltIn() {
    ClassLoader loader = EngineProfiles.class.getClassLoader();
    String index = resource(loader, RESOURCE_DIR + "index.txt");
    ProfileLoader reader = new ProfileLoader();
    List<EngineProfile> profiles = new ArrayList<>();
    for (String line : index.split("\n")) {
      String file = line.strip();
      if (file.isEmpty() || file.startsWith("#")) {
        continue;
      }
      String origin = "engines/" + file + " (built in)";
      profiles.add(reader.parse(resource(loader, RESOURCE_DIR + file), origin));
    }
    return checkedOf(profiles);
  }

  /** Like {@link #of}, but two profiles for one engine are an error (files in one directory). */
  static EngineProfiles checkedOf(List<EngineProfile> profiles) {
    Map<Engine, EngineProfile> seen = new LinkedHashMap<>();
    for (EngineProfile p : profiles) {
      EngineProfile before = seen.put(p.engine(), p);
      if (before != null) {
        throw new ProfileException(p.origin(), "engine", 0,
            "engine '" + p.engine() + "' is also defined by " + before.origin());
      }
    }
    return new EngineProfiles(profiles);
  }

  /**
   * Reads every {@code *.yaml} and {@code *.yml} file of a directory, in file-name order. Two
   * files for one engine are an error.
   *
   * @throws ProfileException when a file is not a valid profile
   * @throws UncheckedIOException when the directory or a file can't be read
   */
  public static List<EngineProfile> readDirectory(Path dir) {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.{yaml,yml}")) {
      for (Path p : ds) {
        if (Files.isRegularFile(p)) {
          files.add(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("can't read the engine profile directory " + dir + ": "
          + dev.gputop.config.internal.IoMessages.describe(e), e);
    }
    files.sort(Comparator.comparing(p -> p.getFileName().toString()));
    ProfileLoader reader = new ProfileLoader();
    List<EngineProfile> out = new ArrayList<>();
    for (Path p : files) {
      out.add(readFile(reader, p));
    }
    return checkedOf(out).all();
  }

  /** Reads one profile file. */
  public static EngineProfile readFile(Path file) {
    return readFile(new ProfileLoader(), file);
  }

  private static EngineProfile readFile(ProfileLoader reader, Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("can't read engine profile " + file + ": "
          + dev.gputop.config.internal.IoMessages.describe(e), e);
    }
    return reader.parse(text, file.toString());
  }

  private static String resource(ClassLoader loader, String name) {
    try (InputStream in = loader.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("built-in engine profile resource " + name + " is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
