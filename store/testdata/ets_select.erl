%% The Erlang side of store/select_vm_test.go, compiled and loaded into the
%% test's VM. Store.Select runs a match specification over keys; ets runs
%% it over objects, so each key is stored as the one-element object {Key},
%% and the specification is rewritten for those objects: each head H
%% becomes {H}, and '$_' (the object) in guards and bodies becomes
%% {element, 1, '$_'} (the key). Constants, {const, X}, are left alone.
-module(ets_select).
-export([run/1]).

%% run([{Keys, Spec}]) -> [{Forward, Reverse} | {error, Text}], one result
%% a case: what ets:select and ets:select_reverse return on an ordered_set
%% holding the keys. A case that raises is an error of its own, so that
%% one bad case does not hide the others' results.
run(Cases) -> [run_case(Keys, Spec) || {Keys, Spec} <- Cases].

run_case(Keys, Spec) ->
    try
        MS = [{{Head}, of_key(Guards), of_key(Body)} || {Head, Guards, Body} <- Spec],
        {select(Keys, MS, fun ets:select/2), select(Keys, MS, fun ets:select_reverse/2)}
    catch C:R ->
        {error, iolist_to_binary(io_lib:format("~p:~p", [C, R]))}
    end.

select(Keys, MS, Select) ->
    T = ets:new(?MODULE, [ordered_set, private]),
    try
        true = ets:insert(T, [{K} || K <- Keys]),
        %% The test gives keys no two of which are ==: none was merged.
        N = length(Keys),
        N = ets:info(T, size),
        Select(T, MS)
    after
        ets:delete(T)
    end.

of_key('$_') -> {element, 1, '$_'};
of_key({const, _} = C) -> C;
of_key([H | T]) -> [of_key(H) | of_key(T)];
of_key(T) when is_tuple(T) -> list_to_tuple(of_key(tuple_to_list(T)));
of_key(M) when is_map(M) -> maps:from_list([{of_key(K), of_key(V)} || {K, V} <- maps:to_list(M)]);
of_key(X) -> X.
