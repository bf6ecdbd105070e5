%% The Erlang side of internal/erlvm: a loop over a {packet,4} port on
%% standard input and output. Each request is term_to_binary({Fun, Args});
%% each reply is term_to_binary({ok, Result}) or {error, Text}. Nothing else
%% may be written to standard output: it is the channel.
-module(erlvm_srv).
-export([main/0]).

main() ->
    Port = open_port({fd, 0, 1}, [binary, {packet, 4}, eof]),
    loop(Port).

loop(Port) ->
    receive
        {Port, {data, Req}} ->
            Reply = try
                        {Fun, Args} = binary_to_term(Req),
                        {ok, call(Fun, Args)}
                    catch C:R:S ->
                        {error, iolist_to_binary(io_lib:format("~p:~p ~P", [C, R, S, 12]))}
                    end,
            Port ! {self(), {command, term_to_binary(Reply)}},
            loop(Port);
        {Port, eof} ->
            halt(0)
    end.

%% Every function takes one argument; lists carry many cases at once.
call(ping, X) -> X;
call(otp_release, _) -> list_to_binary(erlang:system_info(otp_release));
%% Each binary read with binary_to_term and written again with
%% term_to_binary(T, Opts): {ok, Bytes} or {error, Text}.
call(reencode, {Bins, Opts}) ->
    [try {ok, term_to_binary(binary_to_term(B), Opts)}
     catch C:R -> {error, iolist_to_binary(io_lib:format("~p:~p", [C, R]))} end
     || B <- Bins];
%% Each binary read with binary_to_term: {ok, Term} or error.
call(decode, Bins) ->
    [try {ok, binary_to_term(B)} catch _:_ -> error end || B <- Bins];
%% Pairs of binaries: do they hold the same term? Maps compare by their
%% sorted entries: on OTP 25 two maps of more than 32 keys with the same
%% entries, built in different orders, are not always =:= (their
%% maps:keys orders differ too).
call(same, Pairs) -> [canon(binary_to_term(A)) =:= canon(binary_to_term(B)) || {A, B} <- Pairs];
call(sort, Lists) -> [lists:sort(L) || L <- Lists];
%% For pairs {A, B}: {A == B, A =:= B, A < B}.
call(compare, Pairs) -> [{A == B, A =:= B, A < B} || {A, B} <- Pairs];
call(print, Terms) -> [unicode:characters_to_binary(io_lib:format("~tw", [T])) || T <- Terms];
%% ~tp with a line length of 0, which io_lib_pretty takes as "no line
%% breaks": the one-line text of ~p, printable lists and binaries as
%% strings by the VM's printable range (+pc).
call(print_p, Terms) -> [unicode:characters_to_binary(io_lib:format("~0tp", [T])) || T <- Terms];
call(printable_range, _) -> io:printable_range();
call(map_keys, Maps) -> [[K || {K, _} <- maps:to_list(M)] || M <- Maps];
call(map_from_list, Lists) -> [maps:from_list(L) || L <- Lists];
%% {Seed, N}: N random terms of every kind, as term_to_binary writes them.
call(generate, {Seed, N}) ->
    rand:seed(exsss, Seed),
    [term_to_binary(gen(4)) || _ <- lists:seq(1, N)];
%% {Source, Bindings}: evaluate Erlang expressions, "X + 1." with [{'X', 2}].
call(eval, {Src, Bindings}) ->
    {ok, Toks, _} = erl_scan:string(binary_to_list(Src)),
    {ok, Exprs} = erl_parse:parse_exprs(Toks),
    {value, V, _} = erl_eval:exprs(Exprs, lists:foldl(fun({K, Val}, Acc) -> erl_eval:add_binding(K, Val, Acc) end,
                                                       erl_eval:new_bindings(), Bindings)),
    V.

%% The generator: a term of depth up to D.
gen(D) -> gen(D, true).

gen(0, _) -> leaf();
gen(D, Big) ->
    case rand:uniform(10) of
        1 -> list_to_tuple([gen(D - 1, Big) || _ <- lists:seq(1, rand:uniform(5) - 1)]);
        2 -> [gen(D - 1, Big) || _ <- lists:seq(1, rand:uniform(5) - 1)];
        3 -> [gen(D - 1, Big) || _ <- lists:seq(1, rand:uniform(3))] ++ leaf();
        4 -> maps:from_list([{gen(D - 1, false), gen(D - 1, Big)} || _ <- lists:seq(1, rand:uniform(6) - 1)]);
        5 when Big -> maps:from_list([{leaf(), leaf()} || _ <- lists:seq(1, 30 + rand:uniform(10))]);
        _ -> leaf()
    end.

canon(M) when is_map(M) -> {map, lists:sort([{canon(K), canon(V)} || {K, V} <- maps:to_list(M)])};
canon(T) when is_tuple(T) -> {tuple, [canon(X) || X <- tuple_to_list(T)]};
canon([H | T]) -> [canon(H) | canon(T)];
canon(X) -> X.

pick(L) -> lists:nth(rand:uniform(length(L)), L).

leaf() ->
    case rand:uniform(17) of
        1 -> rand:uniform(256) - 1;
        2 -> rand:uniform(1 bsl 32) - (1 bsl 31);
        3 -> (rand:uniform(1 bsl 64) - (1 bsl 63)) * pick([1, 1 bsl 60, -(1 bsl 70)]);
        4 -> pick([1, -1]) * (1 bsl (rand:uniform(3000)) + rand:uniform(1000));
        5 -> pick([0.0, 1.0, -1.5, 1.0e300, 5.0e-324, math:pi(), rand:uniform() * 1.0e10, -rand:uniform()]);
        6 -> list_to_atom([pick("abz_@AZ09") || _ <- lists:seq(1, rand:uniform(10) - 1)]);
        7 -> list_to_atom([pick([$a, 16#e9, 16#ff, 16#133, 16#1f600, 16#4e2d]) || _ <- lists:seq(1, rand:uniform(100))]);
        8 -> [rand:uniform(256) - 1 || _ <- lists:seq(1, rand:uniform(20))];
        9 -> rand:bytes(rand:uniform(20) - 1);
        10 -> <<(rand:bytes(rand:uniform(4)))/binary, (rand:uniform(128) - 1):(rand:uniform(7))>>;
        11 -> pick([[], {}, #{}, <<>>, "", true]);
        12 -> pick([self(), make_ref(), hd(erlang:ports()), ext_pid()]);
        13 -> ext_pid();
        14 -> ext_port();
        15 -> ext_ref();
        16 -> list_to_tuple([rand:uniform(3) || _ <- lists:seq(1, 256 + rand:uniform(10))]);
        17 -> list_to_atom(lists:duplicate(rand:uniform(255), pick([$x, 16#e9, 16#1f600])))
    end.

node_atom() -> pick(['a@h', 'a@hh', 'nonode@nohos', 'nonode@nohosu', 'z@h', 'é@h', 'ĳ@h']).
creation() -> pick([0, 1, 2, 3, 4, 1 bsl 31, 16#ffffffff]).
atom_ext(A) -> B = atom_to_binary(A, utf8), <<119, (byte_size(B)), B/binary>>.
ext_pid() ->
    binary_to_term(<<131, 88, (atom_ext(node_atom()))/binary, (rand:uniform(1 bsl 32) - 1):32,
                     (pick([0, 1, rand:uniform(1 bsl 32) - 1])):32, (creation()):32>>).
ext_port() ->
    case rand:uniform(2) of
        1 -> binary_to_term(<<131, 89, (atom_ext(node_atom()))/binary, (rand:uniform(1 bsl 28) - 1):32, (creation()):32>>);
        2 -> binary_to_term(<<131, 120, (atom_ext(node_atom()))/binary, ((1 bsl 28) + rand:uniform(1 bsl 60)):64, (creation()):32>>)
    end.
ext_ref() ->
    N = rand:uniform(5),
    binary_to_term(<<131, 90, N:16, (atom_ext(node_atom()))/binary, (creation()):32,
                     << <<(rand:uniform(1 bsl 32) - 1):32>> || _ <- lists:seq(1, N) >>/binary>>).
