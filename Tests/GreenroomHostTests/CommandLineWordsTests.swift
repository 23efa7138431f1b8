import Testing
@testable import GreenroomHost

/// `serve --plugin-command`'s words: a shell's quoting rules, without a shell (docs/worker-protocol.md).
@Suite struct CommandLineWordsTests {
    @Test func splitsLikeAShellWithoutOne() throws {
        #expect(try CommandLineWords.split("python3  plugin.py\t--flag") == ["python3", "plugin.py", "--flag"])
        #expect(try CommandLineWords.split(#"node 'my plugin.mjs' "a \"b\" \\c" d\ e"#) == ["node", "my plugin.mjs", #"a "b" \c"#, "d e"])
        #expect(try CommandLineWords.split(#"--name='a b'c "" x"#) == ["--name=a bc", "", "x"])
        #expect(try CommandLineWords.split(#"'$HOME' ~ *.py a|b"#) == ["$HOME", "~", "*.py", "a|b"])
        #expect(try CommandLineWords.split(#"'it'\''s'"#) == ["it's"])
        #expect(try CommandLineWords.split(#""x\y""#) == [#"x\y"#])
    }

    @Test func refusesWhatItCannotSplit() {
        #expect(throws: CommandLineWords.SplitError.self) { try CommandLineWords.split("python3 'plugin.py") }
        #expect(throws: CommandLineWords.SplitError.self) { try CommandLineWords.split(#"node "x"#) }
        #expect(throws: CommandLineWords.SplitError.self) { try CommandLineWords.split(#"node x\"#) }
        #expect(throws: CommandLineWords.SplitError.self) { try CommandLineWords.split("  \t ") }
    }

    @Test func joinReadsBackAsTheSameWords() throws {
        for words in [["python3", "p.py"], ["a b", "it's", "", #"q"uote"#, "$x", "back\\slash"]] {
            #expect(try CommandLineWords.split(CommandLineWords.join(words)) == words)
        }
    }
}
