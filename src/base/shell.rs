//! Words as a POSIX shell reads them, for the commands goldgate prints, and the arguments of a
//! command that a shell or interpreter reads as code.

/// A word as a POSIX shell reads it back: as is when plain, else in single quotes.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Which arguments of `command` a shell or interpreter in it reads as code: the script of `sh
/// -c` (and of `bash`, `zsh`, `fish`, `python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`,
/// `env -S`, `flock -c`, `su -c`...), the rest of the line after `cmd /c` or PowerShell's
/// `-Command`, every argument after `ssh` or `watch` (they join them into a shell command), and
/// the script operand of `sed` and `awk`. A known program counts wherever it stands, so that a
/// wrapper (`timeout 60 sh -c`, `docker exec box bash -c`) hides none; an argument of its own
/// after the script (`[sh, -c, 'extract "$1"', sh, "{document}"]`) is data, not code.
pub fn code_arguments(command: &[String]) -> Vec<bool> {
    let mut code = vec![false; command.len()];
    for (at, word) in command.iter().enumerate() {
        if let Some(reads) = reads_code(&program_name(word)) {
            mark_code(&mut code, &command[at + 1..], at + 1, reads);
        }
    }
    code
}

/// How a program reads code from its arguments.
#[derive(Clone, Copy)]
enum Reads {
    /// The argument after a flag: a short cluster holding one of `letters` (`-c`, `-ec`,
    /// `-lne`), or one of `long`.
    After {
        letters: &'static str,
        long: &'static [&'static str],
    },
    /// Every argument after one of these flags (compared without case).
    Rest(&'static [&'static str]),
    /// Every argument after the program.
    All,
    /// The argument after a flag as for [`Reads::After`], or else the first operand, unless a
    /// flag named a script file (`-f`); `valued` the short flags that take a value of their own.
    FirstOperand {
        letters: &'static str,
        long: &'static [&'static str],
        valued: &'static str,
    },
}

/// The programs known to read an argument as code, by [`program_name`].
fn reads_code(name: &str) -> Option<Reads> {
    const SHELL: Reads = Reads::After {
        letters: "c",
        long: &["--command"],
    };
    Some(match name {
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "yash" | "posh" | "fish"
        | "csh" | "tcsh" | "busybox" | "python" | "pypy" | "script" | "flock" | "su" => SHELL,
        "perl" | "ruby" | "lua" | "luajit" | "rscript" | "r" | "osascript" => Reads::After {
            letters: "eE",
            long: &[],
        },
        "node" | "nodejs" | "bun" | "julia" => Reads::After {
            letters: "epE",
            long: &["--eval", "--print"],
        },
        "deno" => Reads::After {
            letters: "",
            long: &["eval"],
        },
        "php" => Reads::After {
            letters: "rBRE",
            long: &[
                "--run",
                "--process-begin",
                "--process-code",
                "--process-end",
            ],
        },
        "env" => Reads::After {
            letters: "S",
            long: &["--split-string"],
        },
        "cmd" => Reads::Rest(&["/c", "/k", "/r"]),
        "powershell" | "pwsh" => Reads::Rest(&[
            "-c",
            "-command",
            "-e",
            "-ec",
            "-encodedcommand",
            "/c",
            "/command",
        ]),
        "ssh" | "watch" => Reads::All,
        "sed" | "gsed" => Reads::FirstOperand {
            letters: "e",
            long: &["--expression"],
            valued: "l",
        },
        "awk" | "gawk" | "mawk" | "nawk" => Reads::FirstOperand {
            letters: "e",
            long: &["--source"],
            valued: "vF",
        },
        _ => return None,
    })
}

/// A program as [`reads_code`] knows it: the file name without its folder, `.exe` or version
/// (`/usr/bin/python3.11` and `Python3.EXE` are `python`), in lower case.
fn program_name(word: &str) -> String {
    let base = word
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(word)
        .to_lowercase();
    let base = base.strip_suffix(".exe").unwrap_or(&base);
    base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
        .to_owned()
}

/// A short flag cluster (`-c`, `-lne`): its letters.
fn cluster(word: &str) -> Option<&str> {
    let letters = word.strip_prefix('-')?;
    (!letters.is_empty() && letters.chars().all(|c| c.is_ascii_alphabetic())).then_some(letters)
}

/// Marks in `code` (from index `first`) the script that follows a script flag in `args`: its first
/// operand, and every option between (`sh -c -e -- SCRIPT`, `sh -c -o errexit SCRIPT`, `bash -c +x
/// SCRIPT`: a shell takes options after `-c` too, and `--` before the script). Marking an option
/// as well costs nothing: only a value with a space is refused there.
fn script_after(code: &mut [bool], args: &[String], first: usize) {
    let mut value = false;
    for (i, arg) in args.iter().enumerate() {
        code[first + i] = true;
        let option = arg.len() > 1 && (arg.starts_with('-') || arg.starts_with('+'));
        if !option && !std::mem::take(&mut value) {
            return;
        }
        // `-o NAME` and `+o NAME` name an option in the next word.
        value = matches!(arg.as_str(), "-o" | "+o" | "-O" | "+O");
    }
}

/// Marks in `code` (from index `first`) the arguments `args` of one program that it reads as
/// code, as `reads` says.
fn mark_code(code: &mut [bool], args: &[String], first: usize, reads: Reads) {
    let flags = |letters: &str, long: &[&str], arg: &str| {
        cluster(arg).is_some_and(|c| c.contains(|l| letters.contains(l))) || long.contains(&arg)
    };
    match reads {
        Reads::After { letters, long } => {
            for (i, arg) in args.iter().enumerate() {
                if flags(letters, long, arg) {
                    script_after(code, &args[i + 1..], first + i + 1);
                }
            }
        }
        Reads::Rest(names) => {
            if let Some(i) = args
                .iter()
                .position(|a| names.iter().any(|n| n.eq_ignore_ascii_case(a)))
            {
                code[first + i + 1..first + args.len()].fill(true);
            }
        }
        Reads::All => code[first..first + args.len()].fill(true),
        Reads::FirstOperand {
            letters,
            long,
            valued,
        } => {
            let mut named = false;
            let mut i = 0;
            while i < args.len() {
                let arg = args[i].as_str();
                if flags(letters, long, arg) || flags("f", &["--file"], arg) {
                    named = true;
                    if let Some(next) = code.get_mut(first + i + 1) {
                        *next = *next || flags(letters, long, arg);
                    }
                    i += 2;
                } else if cluster(arg).is_some_and(|c| c.ends_with(|l| valued.contains(l))) {
                    i += 2;
                } else if arg.starts_with('-') && arg != "-" {
                    i += 1;
                } else {
                    code[first + i] = !named;
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(
            shell_quote("invoices/acme::guided"),
            "invoices/acme::guided"
        );
        assert_eq!(shell_quote("sp ace/cases"), "'sp ace/cases'");
        assert_eq!(shell_quote("o'brien"), r"'o'\''brien'");
    }

    /// The indices of the arguments read as code.
    fn code(command: &[&str]) -> Vec<usize> {
        let command: Vec<String> = command.iter().map(|w| w.to_string()).collect();
        code_arguments(&command)
            .iter()
            .enumerate()
            .filter_map(|(i, &c)| c.then_some(i))
            .collect()
    }

    #[test]
    fn the_arguments_a_shell_or_interpreter_reads_as_code() {
        let none: Vec<usize> = Vec::new();
        for (command, expected) in [
            (&["sh", "-c", "{document}"][..], vec![2]),
            (&["/bin/bash", "-lc", "{document}"], vec![2]),
            (&["timeout", "60", "zsh", "-c", "x"], vec![4]),
            (&["sh", "-c", "extract \"$1\"", "sh", "{document}"], vec![2]),
            // Options between the flag and the script: the script is still code.
            (&["sh", "-c", "--", "{document}"], vec![2, 3]),
            (&["sh", "-ec", "--", "x", "{document}"], vec![2, 3]),
            (&["sh", "-c", "-o", "errexit", "x", "y"], vec![2, 3, 4]),
            (&["bash", "-c", "+e", "-x", "x", "y"], vec![2, 3, 4]),
            (&["timeout", "60", "sh", "-c", "--", "x", "y"], vec![4, 5]),
            (&["python3.11", "-Ic", "x", "y"], vec![2]),
            (&["Python3.EXE", "extract.py", "{document}"], none.clone()),
            (&["node", "-e", "x"], vec![2]),
            (&["node", "--print", "x"], vec![2]),
            (&["perl", "-lne", "x", "f"], vec![2]),
            (&["php", "-r", "x"], vec![2]),
            (&["env", "-S", "x y"], vec![2]),
            (&["cmd", "/C", "extract", "{document}"], vec![2, 3]),
            (&["pwsh", "-Command", "a", "b"], vec![2, 3]),
            (&["ssh", "host", "extract"], vec![1, 2]),
            (&["sed", "-n", "{document}", "f"], vec![2]),
            (&["sed", "-e", "p", "{document}"], vec![2]),
            (&["sed", "-f", "s.sed", "{document}"], none.clone()),
            (&["awk", "-F", ",", "{document}", "f"], vec![3]),
            (&["awk", "-f", "p.awk", "{document}"], none.clone()),
            (&["extract", "--shell", "{document}"], none.clone()),
            (&["cat", "{document}"], none.clone()),
        ] {
            assert_eq!(code(command), expected, "{command:?}");
        }
    }
}
