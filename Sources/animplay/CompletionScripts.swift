import ArgumentParser

/// Shell completion scripts that know the default subcommand.
///
/// swift-argument-parser's scripts complete `animplay play x.gif --symb<TAB>` but not
/// `animplay x.gif --symb<TAB>`: they take the first word for a subcommand name and, when it is
/// none, offer nothing. Each script gets a small wrapper that completes a command line whose
/// first word is not a subcommand as if `play` stood before it (and offers files next to the
/// subcommand names for the first word). The wrappers hook into the generated scripts at fixed
/// places; Tests/pty/test_completion.py runs each shell on them, so a new parser version that
/// moves those places fails there.
enum CompletionScripts {
    static func script(for shell: CompletionShell) -> String {
        let generated = Animplay.completionScript(for: shell)
        let names = Animplay.configuration.subcommands.map { $0._commandName } + ["help"]
        switch shell {
        case .bash: return bash(generated, names)
        case .zsh: return zsh(generated, names)
        case .fish: return fish(generated, names)
        default: return generated
        }
    }

    /// bash: `_animplay` becomes a wrapper around the generated function (renamed), so the
    /// `complete -F _animplay` line and every caller keep working.
    private static func bash(_ generated: String, _ names: [String]) -> String {
        let renamed = generated.replacing("\n_animplay() {\n", with: "\n_animplay_generated() {\n", maxReplacements: 1)
        guard renamed != generated else { return generated }
        return renamed + """

        # The default subcommand (play): a first word that is not a subcommand is a file or an option
        # of `play`, so the line is completed as if `play` stood before it.
        _animplay() {
            case "${COMP_WORDS[1]}" in
            \(names.joined(separator: "|")))
                ;;
            *)
                if (( COMP_CWORD > 1 )) || [[ "${COMP_WORDS[1]}" == -* ]]; then
                    COMP_LINE="${COMP_WORDS[0]} play${COMP_LINE#"${COMP_WORDS[0]}"}"
                    (( COMP_POINT += 5 ))
                    COMP_WORDS=("${COMP_WORDS[0]}" play "${COMP_WORDS[@]:1}")
                    (( COMP_CWORD += 1 ))
                else
                    _animplay_generated "${@}"
                    local file
                    while IFS='' read -r file; do COMPREPLY+=("${file}"); done < <(compgen -f -- "${2}")
                    return
                fi
                ;;
            esac
            _animplay_generated "${@}"
        }

        """
    }

    /// zsh: the same wrapper; the file is autoloaded as `_animplay`, which must stay the entry
    /// point after the first load.
    private static func zsh(_ generated: String, _ names: [String]) -> String {
        let marker = "\nif [[ \"${funcstack[1]}\" = _animplay ]]; then"
        let renamed = generated.replacing("\n_animplay() {\n", with: "\n_animplay_generated() {\n", maxReplacements: 1)
        guard renamed != generated, let tail = renamed.firstRange(of: marker) else { return generated }
        return String(renamed[..<tail.lowerBound]) + """

        # The default subcommand (play): a first word that is not a subcommand is a file or an option
        # of `play`, so the line is completed as if `play` stood before it.
        _animplay() {
            case "${words[2]}" in
            \(names.joined(separator: "|")))
                ;;
            *)
                if (( CURRENT > 2 )) || [[ "${words[2]}" == -* ]]; then
                    words=("${words[1]}" play "${(@)words[2,-1]}")
                    (( CURRENT += 1 ))
                else
                    _files
                fi
                ;;
            esac
            _animplay_generated "${@}"
        }

        """ + String(renamed[tail.lowerBound...])
    }

    /// fish: completions are conditions on the parsed tokens; `play` is put in front of a first
    /// token that is not a subcommand (or of an option being typed as the first word).
    private static func fish(_ generated: String, _ names: [String]) -> String {
        let anchor = "    case 'animplay'\n        __animplay_parse_subcommand 0 'version' 'h/help'\n"
        guard generated.contains(anchor) else { return generated }
        // The first word may be a file too (the generated script offers only subcommands there).
        let files = "\ncomplete -c 'animplay' -n '__animplay_should_offer_completions_for_positional \"animplay\" -eq 1' -fa '(__fish_complete_path (commandline -ct))'\n"
        return generated.replacing(anchor, with: anchor + """
                # The default subcommand (play): `animplay x.gif --symb` completes as `animplay play x.gif --symb`.
                if set -q unparsed_tokens[1]; and not contains -- $unparsed_tokens[1] \(names.joined(separator: " "))
                    set -p unparsed_tokens play
                else if not set -q unparsed_tokens[1]; and string match -q -- '-*' (commandline -ct)
                    set -p unparsed_tokens play
                end

        """, maxReplacements: 1) + files
    }
}
