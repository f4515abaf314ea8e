package dev.gputop.nvml.jna;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * The loaded libnvidia-ml (or nvml.dll) with every {@link Symbol} resolved once at load time: each
 * symbol to the first of its candidate names that the library exports, or to nothing. Calls to a
 * symbol the library lacks return {@link NvmlReturn#ERROR_FUNCTION_NOT_FOUND} instead of
 * throwing, so callers treat an old driver like an unsupported field.
 *
 * <p>Functions are looked up by name with {@link NativeLibrary#getFunction} rather than through an
 * interface or direct mapping: direct mapping fails as a whole when one optional symbol is missing,
 * and explicit lookup makes the versioned names visible (NVML.md section 2).
 *
 * <p>Thread-safety: immutable after {@link #load}; NVML itself is thread-safe, but callers share
 * scratch memory, so {@code Nvml} serializes its calls.
 */
public final class NvmlNative {

  private final NativeLibrary library;
  private final String libraryName;
  private final Function[] functions = new Function[Symbol.values().length];
  private final String[] resolved = new String[Symbol.values().length];

  private NvmlNative(NativeLibrary library, String libraryName) {
    this.library = library;
    this.libraryName = libraryName;
    for (Symbol symbol : Symbol.values()) {
      for (String candidate : symbol.candidates()) {
        try {
          functions[symbol.ordinal()] = library.getFunction(candidate);
          resolved[symbol.ordinal()] = candidate;
          break;
        } catch (UnsatisfiedLinkError missing) {
          // Try the next, older name.
        }
      }
    }
  }

  /**
   * Loads the library: {@code nameOrPath} when given, else the platform's default names in turn.
   *
   * @throws UnsatisfiedLinkError when no candidate can be loaded; the message lists what was tried
   */
  public static NvmlNative load(String nameOrPath) {
    List<String> candidates =
        nameOrPath == null || nameOrPath.isBlank() ? defaultLibraryNames() : List.of(nameOrPath);
    List<String> failures = new ArrayList<>();
    for (String candidate : candidates) {
      try {
        return new NvmlNative(NativeLibrary.getInstance(candidate), candidate);
      } catch (UnsatisfiedLinkError e) {
        failures.add(candidate + ": " + firstLine(e.getMessage()));
      }
    }
    throw new UnsatisfiedLinkError("cannot load NVML (" + String.join("; ", failures) + ")");
  }

  /**
   * The names tried when {@code nvml.library} is not set: {@code libnvidia-ml.so.1} on Linux (the
   * unversioned name exists only with development packages), {@code nvml.dll} from the DLL search
   * path, System32, then the NVSMI folder of older Windows drivers.
   */
  public static List<String> defaultLibraryNames() {
    if (Platform.isWindows()) {
      String root = System.getenv().getOrDefault("SystemRoot", "C:\\Windows");
      String programFiles = System.getenv().getOrDefault("ProgramFiles", "C:\\Program Files");
      return List.of(
          "nvml",
          root + "\\System32\\nvml.dll",
          programFiles + "\\NVIDIA Corporation\\NVSMI\\nvml.dll");
    }
    return List.of("libnvidia-ml.so.1");
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "not found";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  /** Whether the library exports one of the symbol's names. */
  public boolean has(Symbol symbol) {
    return functions[symbol.ordinal()] != null;
  }

  /** The name the symbol resolved to, or null when the library has none of its names. */
  public String resolvedName(Symbol symbol) {
    return resolved[symbol.ordinal()];
  }

  /** The file that was loaded, or the name given when JNA can't tell. */
  public String libraryFile() {
    File file = library.getFile();
    return file == null ? libraryName : file.getPath();
  }

  /**
   * Calls the function; returns its {@code nvmlReturn_t}, or {@link
   * NvmlReturn#ERROR_FUNCTION_NOT_FOUND}'s code when the library lacks it.
   */
  public int invoke(Symbol symbol, Object... args) {
    Function f = functions[symbol.ordinal()];
    if (f == null) {
      return NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
    }
    return f.invokeInt(args);
  }
}
