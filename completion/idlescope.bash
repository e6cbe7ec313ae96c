# bash completion for idlescope(1).                      -*- shell-script -*-
# Nothing is listed here: commands, options and their values are read from
# the binary being completed (`idlescope --help`, `idlescope CMD --help`), so
# this file cannot fall behind it. Values: an option's own list in its help
# ("table (default), json or csv"), a positional's ("METRIC is a, b or c"),
# CPU lists from sysfs for CPULIST, files for FILE, a command after `--`.
# shellcheck disable=SC2207 # COMPREPLY=($(compgen ...)): the completion idiom

# Commands from `idlescope --help` ("  NAME  help" under "Commands:").
_idlescope_commands()
{
    "$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\)  *.*/\1/p'
}

# One line per option of `$1 $2 --help`: SHORT LONG ARG HELP, separated by \037
# (SHORT, ARG may be empty; HELP joined over its continuation lines).
_idlescope_options()
{
    "$1" "$2" --help 2>/dev/null | awk '
        function flush() { if (long != "" || short != "") printf "%s\037%s\037%s\037%s\n", short, long, arg, desc; short = long = arg = desc = "" }
        /^ +-/ {
            match($0, /^ +/)
            if (RLENGTH > 8) { if (long != "" || short != "") { t = $0; sub(/^ +/, "", t); desc = desc " " t }; next }
            flush()
            line = $0; sub(/^ +/, "", line)
            if (match(line, /   */)) { opts = substr(line, 1, RSTART - 1); desc = substr(line, RSTART + RLENGTH) } else { opts = line }
            n = split(opts, p, ", ")
            for (k = 1; k <= n; k++) {
                o = p[k]; e = index(o, "=")
                if (e) { arg = substr(o, e + 1); o = substr(o, 1, e - 1); sub(/^\[/, "", arg); sub(/\]$/, "", arg) }
                if (o ~ /^--/) long = o; else short = o
            }
            next
        }
        /^  +[^ ]/ { if (long != "" || short != "") { t = $0; sub(/^ +/, "", t); desc = desc " " t }; next }
        { flush() }
        END { flush() }'
}

# The words of a list in a help text: "sysfs (default), cluster, custom:0-3,
# or none" -> sysfs cluster custom: none. Prints nothing unless it is a list
# of at least two single words.
_idlescope_list()
{
    awk -v s="$1" 'BEGIN {
        gsub(/\([^)]*\)/, "", s)
        while ((i = index(s, ": ")) > 0) s = substr(s, i + 2)
        if ((i = index(s, ";")) > 0) s = substr(s, 1, i - 1)
        if ((i = index(s, ". ")) > 0) s = substr(s, 1, i - 1)
        sub(/\.$/, "", s)
        gsub(/ or /, ", ", s); gsub(/ and /, ", ", s)
        n = split(s, it, ",")
        out = ""; m = 0
        for (k = 1; k <= n; k++) {
            w = it[k]; gsub(/^ +| +$/, "", w); sub(/^(or|and) /, "", w)
            if (w == "" || w ~ /^[0-9]/) continue # "custom:0-3,4-7": one item
            if (k < n && index(w, " ")) exit
            split(w, first, " "); w = first[1]
            if (w !~ /^[a-z][a-z0-9.-]*(:.*)?$/) exit
            sub(/:.*/, ":", w)
            out = out " " w; m++
        }
        if (m >= 2) print out
    }'
}

# CPU lists: the online list, and each possible CPU (after a comma too).
_idlescope_cpus()
{
    local cur=$1 base='' online n c
    online=$(cat /sys/devices/system/cpu/online 2>/dev/null)
    n=$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible 2>/dev/null)
    [[ $cur == *,* ]] && base=${cur%,*},
    local words=$online
    for ((c = 0; c <= ${n:-0}; c++)); do
        words+=" $base$c"
    done
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

_idlescope()
{
    local cur prev words cword split
    _init_completion -s || return

    local bin=${words[0]} cmd='' i
    [[ $bin == */* ]] || bin=$(type -P "$bin")
    [[ -x $bin ]] || return

    # the command, and `--` ending idlescope's own words
    for ((i = 1; i < cword; i++)); do
        if [[ -n $cmd && ${words[i]} == -- ]]; then
            _command_offset $((i + 1))
            return
        fi
        [[ -z $cmd && ${words[i]} != -* ]] && cmd=${words[i]}
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$(_idlescope_commands "$bin") --help --version" -- "$cur"))
        return
    fi

    local table short long arg desc opt=
    table=$(_idlescope_options "$bin" "$cmd")
    # a value for the option before it (or before = with -s)
    if [[ $prev == -* ]]; then
        while IFS=$'\037' read -r short long arg desc; do
            [[ -n $arg && ($prev == "$long" || $prev == "$short") ]] && { opt=$arg; break; }
        done <<<"$table"
        if [[ -n $opt ]]; then
            case $opt in
            CPULIST) _idlescope_cpus "$cur" ;;
            FILE) _filedir ;;
            *) COMPREPLY=($(compgen -W "$(_idlescope_list "$desc")" -- "$cur")) ;;
            esac
            [[ ${COMPREPLY[0]-} == *: ]] && compopt -o nospace 2>/dev/null
            return
        fi
    fi
    [[ $split == true ]] && return

    local all=
    while IFS=$'\037' read -r short long arg desc; do
        [[ -n $long ]] && all+=" $long${arg:+=}"
        [[ -n $short && $short != "-?" ]] && all+=" $short"
    done <<<"$table"
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$all --" -- "$cur"))
        [[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
        return
    fi

    # positionals: the Nth after OPTION... in the usage line; "WORD is a,
    # b or c." in the help lists WORD's values, NAME.json takes JSON files
    local help usage npos=0 skip='' w j
    for ((j = 1; j < cword; j++)); do
        w=${words[j]}
        if [[ -n $skip ]]; then skip=; continue; fi
        [[ $w == "$cmd" && -z ${seen_cmd-} ]] && { local seen_cmd=1; continue; }
        if [[ $w == -* ]]; then
            [[ $w == *=* ]] && continue
            while IFS=$'\037' read -r short long arg desc; do
                [[ -n $arg && ($w == "$long" || $w == "$short") ]] && skip=1
            done <<<"$table"
            continue
        fi
        ((npos++))
    done
    help=$("$bin" "$cmd" --help 2>/dev/null)
    usage=$(sed -n '1s/^Usage: //p' <<<"$help")
    local -a tokens=($(grep -oE '[A-Z][A-Za-z]*(\.json)?' <<<"${usage#*]}"))
    local pos=${tokens[npos]-}
    case $pos in
    *.json) _filedir json ;;
    FILE) _filedir ;;
    COMMAND) COMPREPLY=($(compgen -c -- "$cur")) ;;
    "") COMPREPLY=($(compgen -W "$all --" -- "$cur")) ;; # no positionals: the options
    *)
        local list
        list=$(tr '\n' ' ' <<<"$help" | grep -oE "(^| )$pos is [^.]*\." | head -1)
        [[ -z $list ]] || COMPREPLY=($(compgen -W "$(_idlescope_list "${list#* is }")" -- "$cur"))
        ;;
    esac
} &&
    complete -F _idlescope idlescope

# ex: filetype=sh
