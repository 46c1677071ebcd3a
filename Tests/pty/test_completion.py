"""Shell completion with the default subcommand, typed into real interactive bash, zsh and fish
in a pty: `animplay x.gif --symb<TAB>` must complete like `animplay play x.gif --symb<TAB>`.

Each test sources the script the binary generates (`--generate-completion-script SHELL`, what
scripts/install installs), types a line ending in TAB, and reads the completed line on screen.
"""
import os, shutil, subprocess, tempfile
import pytest
import ptyharness as h
from requires import skip_unless

TMP = tempfile.mkdtemp(prefix='animplay-completion-')


def script(shell):
    path = os.path.join(TMP, f'animplay.{shell}')
    with open(path, 'w') as f:
        f.write(subprocess.run([h.binary(), '--generate-completion-script', shell], capture_output=True,
                               text=True, check=True).stdout)
    return path


@pytest.fixture(scope='module')
def folder():
    d = os.path.join(TMP, 'files')
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, 'xanim.gif'), 'wb').close()
    return d


SHELLS = {
    # (program and arguments, line that loads the script, prompt it sets)
    'bash': (['bash', '--norc', '--noprofile', '-i'], "source {script}; PS1='REA''DY> '"),
    'zsh': (['zsh', '-f', '-i'], "autoload -U compinit; compinit -u; source {script}; PS1='REA''DY> '"),
    'fish': (['fish', '--no-config', '-i'],
             "source {script}; function fish_prompt; echo -n 'REA''DY> '; end; function fish_greeting; end"),
}


def screen_words(output, cols=120, rows=20):
    """Words on screen after the last prompt: the line being edited and the candidates listed
    below it (zsh lists a single candidate with its description instead of inserting it)."""
    screen = h.AltScreen(cols, rows)
    h.pyte.ByteStream(screen).feed(h.without_apc(output))
    lines = screen.display
    last = max((i for i, l in enumerate(lines) if 'READY> ' in l), default=None)
    if last is None:
        return []
    return ' '.join([lines[last].split('READY> ', 1)[1]] + lines[last + 1:]).split()


def complete(shell, folder, typed, expect):
    """Types `typed` (ending in TAB) at the shell's prompt and waits until the word `expect` is
    on screen, completed in the line or offered below it (the typed text is a prefix of it)."""
    argv, setup = SHELLS[shell]
    setup = setup.format(script=script(shell))
    seen = []
    def completed(_new, everything):
        if expect in screen_words(everything):
            seen.append(screen_words(everything))
            return True
        return False
    steps = [
        (lambda new, _all: len(new) > 0, f'cd {folder}; {setup}\r'.encode()),
        (b'READY> ', typed.encode()),
        (completed, b'\x03'),
        (b'READY> ', b'exit\r'),
    ]
    r = h.run(argv[1:], exe=argv[0], cols=120, rows=20, timeout=20,
              env={'HOME': TMP, 'XDG_CONFIG_HOME': TMP, 'fish_history': ''}, steps=steps)
    assert seen, f'{shell}: {typed!r} did not offer {expect!r}; on screen: {screen_words(r.output)!r}'


@pytest.mark.parametrize('shell', ['bash', 'zsh', 'fish'])
def test_default_subcommand_completes_play_options(shell, folder):
    skip_unless(shutil.which(shell), f'needs {shell} (scripts/install-deps)')
    complete(shell, folder, 'animplay xanim.gif --symb\t', '--symbols')


@pytest.mark.parametrize('shell', ['bash', 'zsh', 'fish'])
def test_first_word_completes_files_and_options_too(shell, folder):
    skip_unless(shutil.which(shell), f'needs {shell} (scripts/install-deps)')
    complete(shell, folder, 'animplay xan\t', 'xanim.gif')
    complete(shell, folder, 'animplay --symb\t', '--symbols')


@pytest.mark.parametrize('shell', ['bash', 'zsh', 'fish'])
def test_explicit_subcommands_still_complete(shell, folder):
    skip_unless(shutil.which(shell), f'needs {shell} (scripts/install-deps)')
    complete(shell, folder, 'animplay info xanim.gif --js\t', '--json')
    complete(shell, folder, 'animplay inf\t', 'info')
