package dev.gputop.config.internal;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * What went wrong with a file, in words a person reads ({@code no such file}, {@code permission
 * denied}) rather than the exception's type ({@code java.nio.file.NoSuchFileException: a.yaml}),
 * whose message is often only the path the caller already shows.
 */
public final class IoMessages {

  private IoMessages() {}

  /** The reason of {@code e}, without its type or the file's name. */
  public static String describe(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "a part of the path is not a directory";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason(); // "Is a directory", "Too many levels of symbolic links"
    }
    if (e instanceof java.nio.charset.CharacterCodingException) {
      return "not UTF-8 text";
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? "read failed" : m;
  }
}
