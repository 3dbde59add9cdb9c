//! What every subcommand shares: reading the input (a file or standard
//! input, with a progress bar on a terminal for big files), writing the
//! output (standard output, or a file written under a temporary name and
//! renamed), and the one-line errors with their exit codes.

use std::fs;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The input is damaged or not what the command takes, or a file could
    /// not be read or written: one line, exit code 1.
    Failed(String),
    /// The command was used wrongly: exit code 2.
    Usage(String),
    /// Standard output was closed by its reader (`xbf cat big | head`):
    /// stop quietly.
    BrokenPipe,
}

pub type CliResult<T = ()> = Result<T, Failure>;

impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure::Failed(msg)
    }
}

/// An error while writing to standard output.
pub fn stdout_error(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::BrokenPipe
    } else {
        Failure::Failed(format!("<stdout>: {e}"))
    }
}

/// The name an input is reported by: its path, or `<stdin>`.
pub fn input_name(input: Option<&Path>) -> String {
    match input {
        Some(p) if p != Path::new("-") => p.display().to_string(),
        _ => "<stdin>".to_owned(),
    }
}

/// An XBF decoding error on `name`, as one line: `FILE: at byte N, in PATH: kind: detail`.
/// A `too-large` error also says how to raise the budget.
pub fn xbf_error(name: &str, e: &xbf::Error) -> Failure {
    let hint = if e.kind() == xbf::ErrorKind::TooLarge { " (raise it with --max-decoded-bytes)" } else { "" };
    Failure::Failed(format!("{name}: {}{hint}", one_line(&e.to_string())))
}

/// The decoding limits of this run: the defaults, with the budget that
/// `--max-decoded-bytes` gives (set once, by `main`, before any command runs).
static DECODE_OPTIONS: std::sync::OnceLock<xbf::DecodeOptions> = std::sync::OnceLock::new();

pub fn set_max_decoded_bytes(bytes: Option<u64>) {
    let mut opts = xbf::DecodeOptions::default();
    if let Some(b) = bytes {
        opts = opts.max_decoded_bytes(b);
    }
    let _ = DECODE_OPTIONS.set(opts);
}

/// The options every reading subcommand decodes with.
pub fn decode_options() -> &'static xbf::DecodeOptions {
    DECODE_OPTIONS.get_or_init(xbf::DecodeOptions::default)
}

/// Checks that `bytes`, which a writing subcommand is about to write, read
/// back within this run's decoded-memory budget (SPEC.md §16.2): by
/// decoding them, so that the check is the readers' own rule, exactly.
/// Whatever `from-json` or `from-csv` writes, `to-json` then reads with
/// the same budget.
pub fn check_readable(name: &str, bytes: &[u8]) -> CliResult {
    match decode_options().decode_message(bytes) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == xbf::ErrorKind::TooLarge => Err(Failure::Failed(format!(
            "{name}: not written: decoding it would take more than the budget of {} bytes (SPEC.md 16.2); \
             pass a larger --max-decoded-bytes to write it (its readers then need as much)",
            decode_options().get_max_decoded_bytes()
        ))),
        Err(e) => Err(Failure::Failed(format!("{name}: the encoded value does not read back ({e}); this is a bug"))),
    }
}

/// Makes sure a message stays on one line.
pub fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// Inputs at least this big get a progress bar (on a terminal).
const PROGRESS_FROM: u64 = 4 << 20;

/// A progress bar on standard error for a long conversion of `total` bytes
/// (indicatif: redrawn at most 20 times a second, erased when dropped); a
/// hidden one, which writes nothing, unless standard error is a terminal
/// and the work is big, so that pipes and logs see no difference.
pub fn progress_bar(label: &str, total: u64) -> ProgressBar {
    if total < PROGRESS_FROM || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style =
        ProgressStyle::with_template("{msg} [{bar:30}] {percent:>3}% {binary_bytes}/{binary_total_bytes} {eta}")
            .expect("a valid template")
            .progress_chars("#>-");
    bar.set_style(style);
    bar.set_message(label.to_owned());
    bar
}

/// A reader that advances a progress bar (see [`progress_bar`]) by the
/// bytes read.
pub struct Progress<R> {
    inner: R,
    bar: ProgressBar,
}

impl<R> Progress<R> {
    fn new(inner: R, label: String, total: Option<u64>) -> Self {
        Progress { inner, bar: total.map_or_else(ProgressBar::hidden, |t| progress_bar(&label, t)) }
    }
}

impl<R> Drop for Progress<R> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

/// An open input: its name for messages and a buffered reader.
pub struct Input {
    pub name: String,
    pub reader: Box<dyn BufRead>,
    /// The input's length, for a file (counts are then checked against it).
    pub len: Option<u64>,
}

/// Opens a file, or standard input for `None` or `-`.
pub fn open(input: Option<&Path>) -> CliResult<Input> {
    let name = input_name(input);
    let (reader, len): (Box<dyn BufRead>, _) = match input {
        Some(p) if p != Path::new("-") => {
            let file = fs::File::open(p).map_err(|e| Failure::Failed(format!("{name}: {e}")))?;
            let len = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            (Box::new(BufReader::with_capacity(1 << 16, Progress::new(file, name.clone(), len))), len)
        }
        _ => (Box::new(BufReader::with_capacity(1 << 16, io::stdin())), None),
    };
    Ok(Input { name, reader, len })
}

/// Reads the whole input into memory.
pub fn read_all(input: Option<&Path>) -> CliResult<(String, Vec<u8>)> {
    let mut inp = open(input)?;
    let mut bytes = Vec::new();
    inp.reader.read_to_end(&mut bytes).map_err(|e| Failure::Failed(format!("{}: {e}", inp.name)))?;
    Ok((inp.name, bytes))
}

/// Where the output goes: standard output, or a file that appears (by a
/// rename) only once it is complete.
pub struct Output {
    target: Option<(PathBuf, PathBuf)>,
    writer: Box<dyn Write>,
}

impl Output {
    /// Standard output for `None` or `-`, else a temporary file beside `path`.
    pub fn create(path: Option<&Path>) -> CliResult<Output> {
        let Some(path) = path.filter(|p| *p != Path::new("-")) else {
            return Ok(Output { target: None, writer: Box::new(io::BufWriter::with_capacity(1 << 16, io::stdout())) });
        };
        // A device or a pipe (`-o /dev/null`) is written in place: renaming
        // a temporary file onto it would replace the device with a file.
        if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let file = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| Failure::Failed(format!("{}: {e}", path.display())))?;
            return Ok(Output { target: None, writer: Box::new(io::BufWriter::with_capacity(1 << 16, file)) });
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let file_name =
            path.file_name().ok_or_else(|| Failure::Failed(format!("{}: not a file name", path.display())))?;
        let tmp = dir.join(format!(".{}.{}.tmp", file_name.to_string_lossy(), std::process::id()));
        let file = fs::File::create(&tmp).map_err(|e| Failure::Failed(format!("{}: {e}", path.display())))?;
        Ok(Output {
            target: Some((tmp, path.to_owned())),
            writer: Box::new(io::BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// Whether this output is standard output on a terminal (where a
    /// progress bar would mix with the output).
    pub fn is_terminal(&self) -> bool {
        self.target.is_none() && io::stdout().is_terminal()
    }

    /// Writes bytes; a closed standard output is [`Failure::BrokenPipe`].
    pub fn write(&mut self, bytes: &[u8]) -> CliResult {
        self.writer.write_all(bytes).map_err(|e| self.error(e))
    }

    /// Writes a string.
    pub fn str(&mut self, s: &str) -> CliResult {
        self.write(s.as_bytes())
    }

    /// Writes a line.
    pub fn line(&mut self, s: &str) -> CliResult {
        self.write(s.as_bytes())?;
        self.write(b"\n")
    }

    fn error(&self, e: io::Error) -> Failure {
        match &self.target {
            None => stdout_error(e),
            Some((_, path)) => Failure::Failed(format!("{}: {e}", path.display())),
        }
    }

    /// Flushes, and for a file renames it into place. Without this call
    /// (a failed run), the temporary file is removed and nothing replaces
    /// the target.
    pub fn finish(mut self) -> CliResult {
        let flushed = self.writer.flush();
        if let Err(e) = flushed {
            return Err(self.error(e));
        }
        if let Some((tmp, path)) = self.target.take() {
            // Close the file before renaming it.
            self.writer = Box::new(io::sink());
            if let Err(e) = fs::rename(&tmp, &path) {
                let _ = fs::remove_file(&tmp);
                return Err(Failure::Failed(format!("{}: {e}", path.display())));
            }
        }
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some((tmp, _)) = self.target.take() {
            self.writer = Box::new(io::sink());
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Writes `bytes` to `path` (or standard output) as a whole.
pub fn write_output(path: Option<&Path>, bytes: &[u8]) -> CliResult {
    let mut out = Output::create(path)?;
    out.write(bytes)?;
    out.finish()
}
